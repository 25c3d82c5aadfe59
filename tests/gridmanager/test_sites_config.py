"""SIM_GRID_SITES: the forms it takes, one-line errors, and which site serves a GridResource."""

from __future__ import annotations

import pytest

from condorsim.config import KNOBS, Config
from daemons.gridmanager.site import SiteSpec
from daemons.gridmanager.sites import (
    DEFAULT_SITES,
    SiteConfigError,
    parse_sites,
    read_sites,
    site_for,
)

TWO = '[ Resource = "batch slurm"; Slots = 10; StartDelay = 30; FailureRate = 0.25 ]' \
      '\n[ Resource = "arc ce.example.org"; Slots = 4 ]'


@pytest.mark.parametrize("text", [
    TWO,
    TWO.replace("\n", ", "),
    "{ " + TWO.replace("\n", ", ") + " }",
    TWO.replace("Slots", "slots").replace("Resource", "RESOURCE"),
])
def test_sites_are_classads_in_any_of_the_three_forms(text: str) -> None:
    assert parse_sites(text) == [SiteSpec("batch slurm", 10, 30.0, 0.25),
                                 SiteSpec("arc ce.example.org", 4, 0.0, 0.0)]


def test_the_knob_in_a_config_file_with_a_multi_line_value() -> None:
    config = Config.from_text(f"SIM_GRID_SITES @=end\n{TWO}\n@end\n")
    assert [s.resource for s in read_sites(config)] == ["batch slurm", "arc ce.example.org"]


def test_the_default_is_one_site_for_every_batch_system() -> None:
    assert KNOBS["SIM_GRID_SITES"].default == DEFAULT_SITES
    sites = read_sites(Config.from_text(""))
    assert sites == [SiteSpec("batch", 10, 0.0, 0.0)]
    assert site_for(sites, "batch slurm") == sites[0]
    assert site_for(sites, "arc ce.example.org") is None


@pytest.mark.parametrize(("text", "message"), [
    ('[ Slots = 2 ]', 'SIM_GRID_SITES: site 1: Resource must be a GridResource string such '
                      'as "batch slurm"'),
    ('[ Resource = "batch"; Slots = 0 ]', "SIM_GRID_SITES: site 1 (batch): Slots must be an "
                                          "integer >= 1, found 0"),
    ('[ Resource = "batch"; Slots = "x" ]', 'SIM_GRID_SITES: site 1 (batch): Slots must be an '
                                            'integer >= 1, found "x"'),
    ('[ Resource = "b" ] [ Resource = "a"; StartDelay = -1 ]',
     "SIM_GRID_SITES: site 2 (a): StartDelay must be a number of seconds >= 0, found -1"),
    ('[ Resource = "a"; FailureRate = 1.5 ]', "SIM_GRID_SITES: site 1 (a): FailureRate must "
                                              "be a number from 0 to 1, found 1.5"),
    ('[ Resource = "a"; Slot = 3 ]', "SIM_GRID_SITES: site 1: unknown attribute Slot (a site "
                                     "has Resource, Slots, StartDelay and FailureRate)"),
    ('[ Resource = "a" ] [ Resource = "a" ]', "SIM_GRID_SITES: site 2: Resource \"a\" is also "
                                              "site 1's"),
    ('Resource = "a"', "SIM_GRID_SITES: expected '[' to start a site ad, found 'R' at "
                       "character 1"),
    ('[ Resource = "a" ', "SIM_GRID_SITES: a site ad is not closed"),
    ('[ Resource = "a" ]]', "SIM_GRID_SITES: unbalanced ']' at character 19"),
    ('{ 1, 2 }', "SIM_GRID_SITES: a list must hold site ads [ ... ]"),
])
def test_a_bad_value_is_refused_with_one_line_naming_site_and_field(
        text: str, message: str) -> None:
    with pytest.raises(SiteConfigError) as caught:
        parse_sites(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(("resource", "served_by"), [
    ("batch slurm", "batch slurm"),  # exact
    ("batch slurm user@login.example.org", "batch slurm"),  # the longest whole-word prefix
    ("batch pbs", "batch"),
    ("batch slurmx", "batch"),  # a prefix of words, not of characters
    ("batchy", None),
    ("condor ce.example.org ce.example.org:9619", None),
])
def test_a_job_goes_to_the_exact_site_else_the_longest_whole_word_prefix(
        resource: str, served_by: str | None) -> None:
    sites = parse_sites('[ Resource = "batch" ] [ Resource = "batch slurm" ]')
    found = site_for(sites, resource)
    assert (found.resource if found else None) == served_by
