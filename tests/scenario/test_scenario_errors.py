"""Each kind of mistake in a scenario file, and the exact message it gets (golden).

A message names the file, the line (when it can be found), the entry, the field and
what is wrong, so that a user can fix the file without reading our code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.scenario import ScenarioError, load_scenario, parse_scenario

H = '[scenario]\nname = "n"\n'

CASES = [
    pytest.param(
        'x = = 1',
        'scenario.toml, line 1: not valid TOML: Invalid value (column 5)',
        id='toml',
    ),
    pytest.param(
        '[config]\nX = 1\n',
        'scenario.toml: missing the [scenario] section (it needs at least name = "...")',
        id='nosection',
    ),
    pytest.param(
        '[scenario]\ndescription = "d"\n',
        "scenario.toml, line 1: [scenario]: name: missing (required: the scenario's name, shown by replay)",
        id='noname',
    ),
    pytest.param(
        '[scenario]\nnmae = "x"\n',
        "scenario.toml, line 2: [scenario]: unknown key 'nmae' (did you mean 'name'?)",
        id='typo_name',
    ),
    pytest.param(
        'name = "x"\n[scenario]\nname="y"\n',
        "scenario.toml, line 1: 'name' is before any section header: put it under [scenario]",
        id='topkey',
    ),
    pytest.param(
        H + '[[machines]]\nname = "a"\n',
        'scenario.toml, line 3: unknown section [[machines]] (did you mean [[machine]]?)',
        id='unknown_section',
    ),
    pytest.param(
        H + '[pool]\nx = 1\n',
        'scenario.toml, line 3: unknown section [pool] (expected scenario, config, machine, site, file, submit, action, expect)',
        id='unknown_section2',
    ),
    pytest.param(
        '[[scenario]]\nname = "n"\n',
        'scenario.toml, line 1: [scenario] must be a table: write [scenario], not [[scenario]]',
        id='scenario_array',
    ),
    pytest.param(
        H + '[machine]\nname = "a"\n',
        'scenario.toml, line 3: [[machine]] must be an array of tables: write [[machine]], not [machine]',
        id='machine_table',
    ),
    pytest.param(
        H + 'start = 2026-01-01T00:00:00\n',
        'scenario.toml, line 3: [scenario]: start: the datetime 2026-01-01T00:00:00 has no offset: add one (Z or +hh:mm) so it names one instant',
        id='start_local',
    ),
    pytest.param(
        H + 'start = "2026-01-01T00:00:00Z"\n',
        'scenario.toml, line 3: [scenario]: start: expected a datetime with an offset (start = 2026-01-01T09:30:00Z) or epoch seconds, found a string',
        id='start_str',
    ),
    pytest.param(
        H + 'timezone = "Mars/Olympus"\n',
        'scenario.toml, line 3: [scenario]: timezone: unknown time zone \'Mars/Olympus\' (expected an IANA name such as "UTC" or "America/Chicago")',
        id='tz',
    ),
    pytest.param(
        H + 'until = "forever"\n',
        'scenario.toml, line 3: [scenario]: until: \'forever\' is not a duration (expected "90s", "15m", "2h", "1h30m", "1d" or a number of seconds)',
        id='until_bad',
    ),
    pytest.param(
        H + 'until = "0s"\n',
        'scenario.toml, line 3: [scenario]: until: must be longer than 0s (or "quiet")',
        id='until_zero',
    ),
    pytest.param(
        H + 'until = "8d"\n',
        'scenario.toml, line 3: [scenario]: until: 8d is longer than max (7d); raise max too',
        id='until_max',
    ),
    pytest.param(
        H + 'clock = "fast"\n',
        'scenario.toml, line 3: [scenario]: clock: unknown clock \'fast\' (expected "virtual" or "wall")',
        id='clock',
    ),
    pytest.param(
        H + 'speed = 2.0\n',
        'scenario.toml, line 3: [scenario]: speed: only used with clock = "wall"',
        id='speed_virtual',
    ),
    pytest.param(
        H + 'clock = "wall"\nspeed = 0\n',
        'scenario.toml, line 4: [scenario]: speed: must be more than 0, not 0',
        id='speed_zero',
    ),
    pytest.param(
        H + 'seed = -1\n',
        'scenario.toml, line 3: [scenario]: seed: must be at least 0, not -1',
        id='seed',
    ),
    pytest.param(
        H + 'seed = "one"\n',
        'scenario.toml, line 3: [scenario]: seed: expected an integer, found a string',
        id='seed_type',
    ),
    pytest.param(
        '[scenario]\nname = 5\n',
        'scenario.toml, line 2: [scenario]: name: expected a string, found an integer',
        id='name_type',
    ),
    pytest.param(
        '[scenario]\nname = ""\n',
        'scenario.toml, line 2: [scenario]: name: must not be empty',
        id='name_empty',
    ),
    pytest.param(
        H + '[config]\nX = [1, 2]\n',
        'scenario.toml, line 4: [config]: X: expected a number, a boolean or a string, found an array',
        id='config_array',
    ),
    pytest.param(
        H + '[config]\nSCHEDD_INTERVAL = 1\nschedd_interval = 2\n',
        "scenario.toml, line 5: [config]: schedd_interval: 'SCHEDD_INTERVAL' and 'schedd_interval' name the same knob (knob names are case-insensitive)",
        id='config_case',
    ),
    pytest.param(
        H + '[config]\n"BAD NAME" = 1\n',
        "scenario.toml, line 4: [config]: BAD NAME: 'BAD NAME' is not a knob name (letters, digits, '_' and '.')",
        id='config_name',
    ),
    pytest.param(
        H + '[config]\nconfig_file = "nope.conf"\n',
        'scenario.toml, line 4: [config]: config_file: no such file: {dir}/nope.conf',
        id='config_file_missing',
    ),
    pytest.param(
        H + '[config]\nX = nan\n',
        'scenario.toml, line 4: [config]: X: nan is not a number HTCondor reads',
        id='config_nan',
    ),
    pytest.param(
        H + '[[machine]]\nslot = 2\n',
        "scenario.toml, line 4: [[machine]] #1: unknown key 'slot' (did you mean 'slots'?)",
        id='machine_typo',
    ),
    pytest.param(
        H + '[[machine]]\nslots = 4\ncpus = 2\n',
        'scenario.toml, line 5: [[machine]] #1: cpus: 2 cannot be split over 4 slots (each slot needs at least 1)',
        id='machine_cpus',
    ),
    pytest.param(
        H + '[[machine]]\ncount = 0\n',
        'scenario.toml, line 4: [[machine]] #1: count: must be at least 1, not 0',
        id='machine_count',
    ),
    pytest.param(
        H + '[[machine]]\nname = "bad name"\n',
        'scenario.toml, line 4: [[machine]] #1 (name "bad name"): name: \'bad name\' is not a machine name (letters, digits, \'_\', \'-\', \'.\')',
        id='machine_name',
    ),
    pytest.param(
        H + '[[machine]]\nstart = "TARGET.x =="\n',
        'scenario.toml, line 4: [[machine]] #1: start: not a valid ClassAd expression (line 1, column 12: unexpected end of input (expected an expression))',
        id='machine_start',
    ),
    pytest.param(
        H + '[[machine]]\nrank = [1]\n',
        'scenario.toml, line 4: [[machine]] #1: rank: expected ClassAd expression text (a string), found an array',
        id='machine_rank_type',
    ),
    pytest.param(
        H + '[[machine]]\nattrs = "HasGPU"\n',
        'scenario.toml, line 4: [[machine]] #1: attrs: expected a table (attrs = { Name = "expr" }), found a string',
        id='machine_attrs_type',
    ),
    pytest.param(
        H + '[[machine]]\nattrs = { "Has GPU" = "true" }\n',
        "scenario.toml, line 4: [[machine]] #1: attrs.Has GPU: 'Has GPU' is not a ClassAd attribute name",
        id='machine_attr_name',
    ),
    pytest.param(
        H + '[[machine]]\nattrs = { HasGPU = "tru e" }\n',
        'scenario.toml, line 4: [[machine]] #1: attrs.HasGPU: not a valid ClassAd expression (line 1, column 5: unexpected a name (expected end of input))',
        id='machine_attr_value',
    ),
    pytest.param(
        H + '[[machine]]\ncount = 2\n[[machine]]\nname = "exec2"\n',
        'scenario.toml, line 6: [[machine]] #2 (name "exec2"): name: machine name \'exec2\' is also made by [[machine]] #1',
        id='machine_dup',
    ),
    pytest.param(
        H + '[[machine]]\n[[machine]]\n',
        'scenario.toml, line 4: [[machine]] #2 (name "exec"): name: machine name \'exec\' is also made by [[machine]] #1',
        id='machine_dup2',
    ),
    pytest.param(
        H + '[[machine]]\nclock_offset = "soon"\n',
        'scenario.toml, line 4: [[machine]] #1: clock_offset: \'soon\' is not a duration (expected "90s", "15m", "2h", "1h30m", "1d" or a number of seconds)',
        id='clock_offset',
    ),
    pytest.param(
        H + '[[site]]\nslots = 2\n',
        'scenario.toml, line 3: [[site]] #1: resource: missing (required: the GridResource its jobs name, e.g. "batch slurm")',
        id='site_noresource',
    ),
    pytest.param(
        H + '[[site]]\nresource = "batch slurm"\nfailure_rate = 1.5\n',
        'scenario.toml, line 5: [[site]] #1 (resource "batch slurm"): failure_rate: must be between 0 and 1, not 1.5',
        id='site_rate',
    ),
    pytest.param(
        H + '[[site]]\nresource = "a"\n[[site]]\nresource = "a"\n',
        'scenario.toml, line 6: [[site]] #2 (resource "a"): resource: [[site]] #1 has the same resource',
        id='site_dup',
    ),
    pytest.param(
        H + '[[submit]]\ntext = "queue"\nfile = "a.sub"\n',
        'scenario.toml, line 4: [[submit]] #1 (at "0s"): give either text (the submit description) or file, not both',
        id='submit_both',
    ),
    pytest.param(
        H + '[[submit]]\nat = "1m"\n',
        'scenario.toml, line 3: [[submit]] #1 (at "1m"): missing the submit description: give text = \'\'\'...\'\'\' or file = "name.sub"',
        id='submit_neither',
    ),
    pytest.param(
        H + '[[submit]]\nfile = "missing.sub"\n',
        'scenario.toml, line 4: [[submit]] #1 (at "0s"): file: no such file: {dir}/missing.sub',
        id='submit_file',
    ),
    pytest.param(
        H + '[[submit]]\nat = "end"\ntext = "queue"\nexpect_error = "x"\n',
        'scenario.toml, line 4: [[submit]] #1 (at "end"): at: "end" is only for [[expect]] (it is after the run stops)',
        id='submit_end',
    ),
    pytest.param(
        H + '[[submit]]\nowner = "a b"\ntext = "queue"\nexpect_error = "x"\n',
        'scenario.toml, line 4: [[submit]] #1 (at "0s"): owner: \'a b\' is not a user name',
        id='submit_owner',
    ),
    pytest.param(
        H + '[[action]]\ndo = "hold"\njob = "1.0"\n',
        'scenario.toml, line 3: [[action]] #1: at: missing (required: when it happens, e.g. at = "10m")',
        id='action_noat',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "freeze"\n',
        'scenario.toml, line 5: [[action]] #1 (at "10m"): do: unknown action \'freeze\' (expected one of hold, release, remove, qedit, suspend, continue, vacate, reconfig, kill, restart, site_down, site_up)',
        id='action_do',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "site_down"\n',
        'scenario.toml, line 3: [[action]] #1 (at "10m"): site: missing (required: the resource of the [[site]] it concerns)',
        id='action_site_missing',
    ),
    pytest.param(
        H + '[[site]]\nresource = "batch slurm"\n[[action]]\nat = "10m"\ndo = "site_up"\nsite = "batch pbs"\n',
        'scenario.toml, line 8: [[action]] #1 (at "10m"): site: no [[site]] has resource "batch pbs" (sites: "batch slurm")',
        id='action_site_unknown',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "site_up"\nsite = "batch pbs"\n',
        'scenario.toml, line 6: [[action]] #1 (at "10m"): site: no [[site]] has resource "batch pbs" (sites: none: add a [[site]])',
        id='action_site_none',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "hold"\njob = "1.0"\nsite = "batch"\n',
        "scenario.toml, line 7: [[action]] #1 (at \"10m\"): site: not used by 'hold' (only by site_down, site_up)",
        id='action_site_on_hold',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "relase"\njob = "1"\n',
        'scenario.toml, line 5: [[action]] #1 (at "10m"): do: unknown action \'relase\' (did you mean \'release\'?)',
        id='action_do2',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "qedit"\njob = "1.0"\natr = "JobPrio"\nvalue = "1"\n',
        'scenario.toml, line 7: [[action]] #1 (at "10m"): unknown key \'atr\' (did you mean \'attr\'?)',
        id='action_typo',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "hold"\n',
        'scenario.toml, line 3: [[action]] #1 (at "10m"): missing the jobs it acts on: give job = "1.0" or constraint = \'...\'',
        id='action_nojob',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "hold"\njob = "1.0"\nconstraint = "true"\n',
        'scenario.toml, line 7: [[action]] #1 (at "10m"): constraint: give job or constraint, not both',
        id='action_both',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "hold"\njob = "1.x"\n',
        'scenario.toml, line 6: [[action]] #1 (at "10m"): job: \'1.x\' is not a job id (expected "cluster.proc" (e.g. "1.0") or a cluster "1")',
        id='action_jobid',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "hold"\njob = "0.1"\n',
        'scenario.toml, line 6: [[action]] #1 (at "10m"): job: \'0.1\': cluster ids start at 1',
        id='action_jobid0',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "qedit"\njob = "1.0"\nvalue = "1"\n',
        'scenario.toml, line 3: [[action]] #1 (at "10m"): attr: missing (required: the attribute to set)',
        id='action_qedit_noattr',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "qedit"\njob = "1.0"\nattr = "JobPrio"\n',
        'scenario.toml, line 3: [[action]] #1 (at "10m"): value: missing (required: the attribute\'s new value, as ClassAd expression text)',
        id='action_qedit_novalue',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "qedit"\njob = "1.0"\nattr = "Job Prio"\nvalue = "1"\n',
        'scenario.toml, line 7: [[action]] #1 (at "10m"): attr: \'Job Prio\' is not a ClassAd attribute name',
        id='action_qedit_badattr',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "qedit"\njob = "1.0"\nattr = "JobPrio"\nvalue = "1 +"\n',
        'scenario.toml, line 8: [[action]] #1 (at "10m"): value: not a valid ClassAd expression (line 1, column 4: unexpected end of input (expected an expression))',
        id='action_qedit_badvalue',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "release"\njob = "1.0"\nreason = "x"\n',
        'scenario.toml, line 7: [[action]] #1 (at "10m"): reason: not used by \'release\' (only by hold, remove)',
        id='action_reason_release',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "kill"\n',
        'scenario.toml, line 3: [[action]] #1 (at "10m"): daemon: missing (required: which daemon: one of master, collector, negotiator, schedd, startd, shadow, starter, job_router, gridmanager)',
        id='action_kill_nodaemon',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "kill"\ndaemon = "SCHEDD"\n',
        'scenario.toml, line 6: [[action]] #1 (at "10m"): daemon: unknown daemon \'SCHEDD\' (did you mean \'schedd\'?)',
        id='action_kill_baddaemon',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "restart"\ndaemon = "condor_schedd"\n',
        'scenario.toml, line 6: [[action]] #1 (at "10m"): daemon: unknown daemon \'condor_schedd\' (expected one of master, collector, negotiator, schedd, startd, shadow, starter, job_router, gridmanager)',
        id='action_kill_baddaemon2',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "kill"\ndaemon = "schedd"\njob = "1.0"\n',
        'scenario.toml, line 7: [[action]] #1 (at "10m"): job: not used by \'kill\' (only by hold, release, remove, qedit, suspend, continue, vacate)',
        id='action_kill_job',
    ),
    pytest.param(
        H + '[[action]]\nat = "10m"\ndo = "hold"\nconstraint = \'Owner == "alice\'\n',
        'scenario.toml, line 6: [[action]] #1 (at "10m"): constraint: not a valid ClassAd expression (line 1, column 10: unterminated quoted text (expected "))',
        id='action_constraint',
    ),
    pytest.param(
        H + 'start = 2026-01-02T00:00:00Z\n[[action]]\nat = 2026-01-01T00:00:00Z\ndo = "hold"\njob = "1"\n',
        'scenario.toml, line 5: [[action]] #1 (at "2026-01-01T00:00:00Z"): at: 2026-01-01T00:00:00Z is 1d before the scenario\'s start',
        id='action_before_start',
    ),
    pytest.param(
        H + 'until = "1h"\n[[action]]\nat = "2h"\ndo = "hold"\njob = "1"\n',
        'scenario.toml, line 5: [[action]] #1 (at "2h"): at: 2h is after the run stops (until = 1h)',
        id='action_after_until',
    ),
    pytest.param(
        H + '[[action]]\nat = "8d"\ndo = "hold"\njob = "1"\n',
        'scenario.toml, line 4: [[action]] #1 (at "8d"): at: 8d is after the run\'s cap (max = 7d)',
        id='action_after_max',
    ),
    pytest.param(
        H + '[[action]]\nat = "1m"\ndo = "reconfig"\nconfig = { X = [1] }\n',
        'scenario.toml, line 6: [[action]] #1 (at "1m"): config.X: expected a number, a boolean or a string, found an array',
        id='action_config_bad',
    ),
    pytest.param(
        H + '[[expect]]\nthat = "true"\n',
        'scenario.toml, line 3: [[expect]] #1 (at "end"): missing what it is about: give job = "1.0", constraint = \'...\', ads = "Machine" or messages = { cmd = "..." }',
        id='expect_none',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\nconstraint = "true"\nthat = "true"\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): constraint: give only one of job, constraint and ads (found job and constraint)',
        id='expect_two',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\n',
        'scenario.toml, line 3: [[expect]] #1 (at "end"): nothing to check: give that or events',
        id='expect_nothing',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\ncount = 1\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): count: only for constraint, ads or messages (a job is one job)',
        id='expect_count_job',
    ),
    pytest.param(
        H + '[[expect]]\nconstraint = "true"\nwhere = "true"\ncount = 1\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): where: only for ads (for jobs, use constraint)',
        id='expect_where_job',
    ),
    pytest.param(
        H + '[[expect]]\nads = "Machine"\nevents = ["SUBMIT"]\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): events: only for jobs (job or constraint)',
        id='expect_events_ads',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1"\nthat = "true"\n',
        'scenario.toml, line 4: [[expect]] #1 (at "end"): job: \'1\' names a whole cluster; name one job ("1.0"), or use constraint = \'ClusterId == 1\'',
        id='expect_cluster',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\nthat = "JobStatus == 5 &&"\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): that: not a valid ClassAd expression (line 1, column 18: unexpected end of input (expected an expression))',
        id='expect_that',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\nevents = ["SUBMIT", "JOB_HOLD"]\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): events: unknown event \'JOB_HOLD\' (did you mean \'JOB_HELD\'?)',
        id='expect_event',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\nevents = ["SUBMIT", "BANANA"]\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): events: unknown event \'BANANA\' (see htcondor.JobEventType for the names)',
        id='expect_event2',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\nevents = []\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): events: expected an array of event names (["SUBMIT", "EXECUTE"]), found an empty array',
        id='expect_events_empty',
    ),
    pytest.param(
        H + '[[expect]]\njob = "1.0"\nevents = "SUBMIT"\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): events: expected an array of event names (["SUBMIT", "EXECUTE"]), found a string',
        id='expect_events_type',
    ),
    pytest.param(
        H + '[[expect]]\nads = "Machines"\ncount = 1\n',
        'scenario.toml, line 4: [[expect]] #1 (at "end"): ads: unknown ad type \'Machines\' (did you mean \'Machine\'?)',
        id='expect_ads',
    ),
    pytest.param(
        H + '[[expect]]\nads = "Startd"\ncount = 1\n',
        'scenario.toml, line 4: [[expect]] #1 (at "end"): ads: unknown ad type \'Startd\' (expected one of Machine, Scheduler, Submitter, Negotiator, DaemonMaster, Collector, Grid)',
        id='expect_ads2',
    ),
    pytest.param(
        H + '[[expect]]\nads = "Machine"\ncount = -1\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): count: must be at least 0, not -1',
        id='expect_count_neg',
    ),
    pytest.param(
        H + '[[expect]]\nat = "15 m"\njob = "1.0"\nthat = "true"\n',
        'scenario.toml, line 4: [[expect]] #1 (at "15 m"): at: \'15 m\' is not a duration (expected "90s", "15m", "2h", "1h30m", "1d" or a number of seconds)',
        id='expect_at_typo',
    ),
    pytest.param(
        H + '[[expect]]\nat = 2026-01-01T00:15:00\njob = "1.0"\nthat = "true"\n',
        'scenario.toml, line 4: [[expect]] #1 (at "2026-01-01T00:15:00"): at: the datetime 2026-01-01T00:15:00 has no offset: add one (Z or +hh:mm) so it names one instant',
        id='expect_at_local',
    ),
    pytest.param(
        H + '[[expect]]\nads = "Machine"\nwhere = "State = 1"\ncount = 1\n',
        'scenario.toml, line 5: [[expect]] #1 (at "end"): where: not a valid ClassAd expression (line 1, column 7: unexpected \'=\' (expected end of input))',
        id='expect_where_bad',
    ),
    pytest.param(
        'scenario = "x"\n',
        "scenario.toml, line 1: [scenario] must be a table, not a string",
        id='scenario_string',
    ),
    pytest.param(
        'machine = [1]\n' + H,
        "scenario.toml, line 1: [[machine]] must be an array of tables, not of integers",
        id='machine_integers',
    ),
    pytest.param(
        'expect = 5\n' + H,
        "scenario.toml, line 1: [[expect]] must be an array of tables, not an integer",
        id='expect_integer',
    ),
]


@pytest.mark.parametrize(("text", "message"), CASES)
def test_error_message(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="scenario.toml", base_dir=tmp_path)
    assert str(caught.value) == message.replace("{dir}", str(tmp_path.resolve()))


def test_error_fields() -> None:
    text = H + '[[action]]\nat = "10m"\ndo = "freeze"\n'
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="scenario.toml")
    error = caught.value
    assert (error.source, error.line, error.where, error.field) == \
        ("scenario.toml", 5, '[[action]] #1 (at "10m")', "do")
    assert error.message.startswith("unknown action 'freeze'")


def test_lines_are_found_after_multi_line_strings() -> None:
    text = H + (
        "[[submit]]\n"
        "expect_error = \"x\"\n"
        "text = '''\n"
        "[[action]]\n"
        "do = 1\n"
        "'''\n"
        "[[action]]\n"
        "at = \"1m\"\n"
        "do = 1\n"
    )
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="s.toml")
    assert str(caught.value) == \
        's.toml, line 11: [[action]] #1 (at "1m"): do: expected a string, found an integer'


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(tmp_path / "none.toml")
    assert str(caught.value) == f"{tmp_path / 'none.toml'}: no such file"
    with pytest.raises(ScenarioError) as caught:
        load_scenario(tmp_path)
    assert str(caught.value) == f"{tmp_path}: is a directory, not a scenario file"
    (tmp_path / "latin1.toml").write_bytes(b'[scenario]\nname = "caf\xe9"\n')
    with pytest.raises(ScenarioError) as caught:
        load_scenario(tmp_path / "latin1.toml")
    assert str(caught.value) == f"{tmp_path / 'latin1.toml'}: is not UTF-8 text"


def test_a_submit_file_that_is_not_text(tmp_path: Path) -> None:
    (tmp_path / "a.sub").write_bytes(b"\xff\xfe")
    text = H + '[[submit]]\nfile = "a.sub"\nexpect_error = "x"\n'
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="s.toml", base_dir=tmp_path)
    assert str(caught.value) == (f's.toml, line 4: [[submit]] #1 (at "0s"): file: '
                                 f"{(tmp_path / 'a.sub').resolve()} is not UTF-8 text")
