"""``condorsim job_router_info``: show the routes and try them on jobs, like condor_job_router_info.

How this works
--------------
The pool's configuration is read as ``condorsim config_val`` reads it and turned into
routes by :func:`condorsim.routing.load_router_config`; errors and what the router would
log at start-up are printed first (``JobRouter is disabled.`` when routing is off).

* ``-config`` prints the pre- and post-route transforms and each route (name, source,
  universe, MaxJobs, MaxIdleJobs, GridResource, Requirements and its statements) in the
  order the router tries them, as condor_job_router_info does.
* ``-match-jobs -jobads FILE`` reads job ads (``condor_q -long`` output; ``-`` is stdin),
  keeps the candidates of the umbrella constraint, and gives each the route the router
  would choose, counting routed jobs against MaxJobs, MaxIdleJobs and JOB_ROUTER_MAX_JOBS
  as the router does within one poll. ``-ignore-prior-routing`` first removes Managed,
  RoutedBy, StageInStart and StageInFinish and sets JobStatus to idle.
* ``-route-jobs OUT`` also makes each routed copy (``-`` is stdout) and writes it in long
  form, sorted by attribute; ``-log-steps`` prints each transform step.

Differences from HTCondor 24.0 (docs/router.md): ``-match-jobs`` prints which route each
job takes (HTCondor prints nothing more than its banner unless asked for diagnostics);
the routed copies do not show ``Managed``/``ManagedManager`` (HTCondor's tool sets them
on the ad it holds as a stand-in for claiming the original, but the real copy is
submitted without them).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from condorsim.classad import ClassAdError
from condorsim.config import Config, ConfigError, find_config_file
from condorsim.routing import (
    Route,
    RouterConfig,
    choose_route,
    is_candidate,
    load_router_config,
    make_routed_copy,
    parse_constraint,
    umbrella_constraint,
)

from .adfiles import AdFileError, AdWriter, read_ads

__all__ = ["main"]

USAGE = """\
Usage: condorsim job_router_info [options]
    where [options] is one or more of:
\t-help\t\tPrint this screen and exit
\t-config\t\tPrint configured routes
\t-match-jobs\tMatch jobs to routes and print the first match
\t-route-jobs <file>\tMatch jobs to routes and print the routed jobs to the file
\t-log-steps\tLog the routing steps as jobs are routed. Use with -route-jobs
\t-ignore-prior-routing\tRemove routing attributes from the job ClassAd and set JobStatus to IDLE before matching
\t-jobads <file>\tWhen operation requires job ClassAds, Read them from <file>
\t\t\tIf <file> is -, read from stdin

Reads the pool's configuration ($CONDORSIM_CONFIG, else ~/.condorsim/condor_config).
"""

DEPRECATED = ("JOB_ROUTER_DEFAULTS", "JOB_ROUTER_ENTRIES", "JOB_ROUTER_ENTRIES_CMD",
              "JOB_ROUTER_ENTRIES_FILE")  # fmt: skip


class _Usage(Exception):
    pass


def _is(arg: str, word: str, least: int) -> bool:
    body = arg.lstrip("-")
    return arg.startswith("-") and len(body) >= least and word.startswith(body)


def _label(route: Route) -> str:
    """Where a route comes from, as HTCondor's ``JobRoute::Source``: the knob's name part,
    or ``entries:N`` / ``file:N`` / ``cmd:N``."""
    source = route.source
    if source.startswith("JOB_ROUTER_ROUTE_"):
        return source[len("JOB_ROUTER_ROUTE_") :]
    if source.endswith("]") and "[" in source:
        return source[source.rindex("[") + 1 : -1]
    return source


def print_config(router: RouterConfig, out: TextIO) -> None:
    """The routes and transforms, as condor_job_router_info -config prints them."""
    out.write("\n\n")
    for title, transforms in (("Pre-Route", router.pre_route), ("Post-Route", router.post_route)):
        for transform in transforms:
            out.write(f"{title} Transform : {transform.name}\n")
            out.write(transform.formatted("\t", comments=True) + "\n\n")
    for index, route in enumerate(router.routes, start=1):
        out.write(f"Route {index}\n")
        out.write(f'Name         : "{route.name}"\n')
        out.write(f"Source       : {_label(route)}\n")
        out.write(f"Universe     : {route.target_universe}\n")
        out.write(f"MaxJobs      : {route.max_jobs}\n")
        out.write(f"MaxIdleJobs  : {route.max_idle_jobs}\n")
        out.write(f"GridResource : {route.grid_resource}\n")
        out.write(f"Requirements : {route.requirements_text}\n")
        uses = "uses Pre/Post-Route Transforms" if route.use_pre_route_transforms else ""
        out.write(f"Route        : {uses}\n")
        shown = replace(route.transform, universe=route.target_universe)
        out.write(shown.formatted("\t", comments=True) + "\n\n")


def _parse(argv: list[str]) -> dict[str, object]:
    opts: dict[str, object] = {"jobads": []}
    i = 0
    while i < len(argv):
        arg = argv[i]

        def value(name: str) -> str:
            nonlocal i
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if nxt is None or (nxt.startswith("-") and nxt not in ("-", "-2")):
                raise _Usage(f"-{name} requires an argument")
            i += 1
            return nxt

        if _is(arg, "help", 1):
            opts["help"] = True
        elif _is(arg, "version", 1):
            opts["version"] = True
        elif _is(arg, "config", 2):
            opts["config"] = True
        elif _is(arg, "match-jobs", 2):
            opts["match"] = True
        elif _is(arg, "route-jobs", 5):
            opts["match"] = True
            opts["route"] = value("route-jobs")
        elif _is(arg, "log-steps", 2):
            opts["steps"] = True
        elif _is(arg, "ignore-prior-routing", 2):
            opts["ignore"] = True
        elif _is(arg, "jobads", 1):
            jobads = opts["jobads"]
            assert isinstance(jobads, list)
            jobads.append(value("jobads"))
        elif arg.startswith("-"):
            raise _Usage(f"ERROR: {arg} is not a valid argument")
        i += 1
    return opts


def _route_jobs(router: RouterConfig, files: list[str], opts: dict[str, object],
                out: TextIO, err: TextIO) -> int:  # fmt: skip
    jobs = []
    for path in files:
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError:
            err.write(f"Can't open file of job ads: {path}\n")
            return 1
        for ad in read_ads(text, "long", path):
            cluster, proc = ad.evaluate("ClusterId"), ad.evaluate("ProcId")
            if type(cluster) is not int or type(proc) is not int:
                err.write("Skipping ad because it doesn't have a ClusterId and/or ProcId attribute\n")
                continue
            jobs.append((f"{cluster}.{proc}", ad))
    out.write("\nMatching jobs against routes to find candidate jobs.\n")
    if not jobs:
        out.write("There are no jobs to match\n")
        return 0
    if opts.get("ignore"):
        for _, ad in jobs:
            for name in ("Managed", "RoutedBy", "StageInStart", "StageInFinish"):
                if name in ad:
                    del ad[name]
            ad["JobStatus"] = 1
    counts = {route.name: 0 for route in router.routes}

    def accepting(route: Route) -> bool:
        n = counts[route.name]
        return (route.max_idle_jobs < 0 or n < route.max_idle_jobs) and n < route.max_jobs

    text = umbrella_constraint([r for r in router.routes if accepting(r)],
                               router.source_constraint, router.router_name)  # fmt: skip
    if text is None:
        out.write("no routes can accept more jobs at the moment.\n")
        return 0
    try:
        umbrella = parse_constraint(text)
    except ClassAdError as exc:
        err.write(f"ERROR: the candidate constraint does not parse: {exc}\n{text}\n")
        return 1
    destination = opts.get("route")
    routed_out: TextIO | None = None
    if isinstance(destination, str):
        routed_out = sys.stdout if destination == "-" else sys.stderr if destination == "-2" else None
        if routed_out is None:
            try:
                routed_out = open(destination, "w", encoding="utf-8")
            except OSError:
                err.write(f"could not open {destination}\n")
                return 1
    found = 0
    turn = 0
    try:
        for job_id, ad in jobs:
            if router.max_jobs >= 0 and found >= router.max_jobs:
                out.write(f"Reached maximum managed jobs ({router.max_jobs}).\n")
                break
            if not is_candidate(ad, umbrella):
                out.write(f"Job {job_id}: not a candidate\n")
                continue
            choice = choose_route(ad, router.routes, accepting, round_robin=router.round_robin, turn=turn)
            if choice.route is None:
                if choice.all_full:
                    out.write("all routes are full.\n")
                    break
                out.write(f"Job {job_id}: no route found\n")
                continue
            turn += 1
            found += 1
            counts[choice.route.name] += 1
            out.write(f"Job {job_id}: route {choice.route.name}\n")
            if routed_out is not None:
                _route_one(job_id, ad, choice.route, router, bool(opts.get("steps")), out, routed_out)
        out.write(f"{found} candidate jobs found\n")
    finally:
        if routed_out is not None and routed_out not in (sys.stdout, sys.stderr):
            routed_out.close()
    return 0


def _route_one(job_id: str, ad: object, route: Route, router: RouterConfig, steps: bool,
               out: TextIO, routed_out: TextIO) -> None:  # fmt: skip
    from condorsim.classad import ClassAd

    assert isinstance(ad, ClassAd)
    routed = make_routed_copy(ad, job_id, route, router)
    if steps:
        for step in routed.steps:
            out.write(f"\t{step}\n")
    for message in routed.messages:
        out.write(f"{message}\n")
    if not routed.ok:
        out.write(f"JobRouter failure (src={job_id},route={route.name}): {routed.error}\n")
        return
    if routed.edit_in_place:
        out.write(f"JobRouter (src={job_id},route={route.name}): Done editing job.\n")
    else:
        owner = ad.evaluate("Owner")
        domain = ad.evaluate("NTDomain")
        sandboxed = " (sandboxed)" if routed.sandboxed else ""
        out.write(f"submit_job as {owner}@{domain if type(domain) is str else ''} "
                  f"to local pool:local{sandboxed}:\n")  # fmt: skip
    writer = AdWriter(routed_out, "long")
    writer.write(routed.ad)


def main(argv: list[str]) -> int:
    """Run ``condorsim job_router_info``; return the exit status."""
    try:
        opts = _parse(argv)
    except _Usage as exc:
        message = str(exc)
        print(message if message.startswith("ERROR") else f"condorsim job_router_info: {message}",
              file=sys.stderr)  # fmt: skip
        print(USAGE, end="", file=sys.stderr)
        return 1
    if opts.get("help") or not any(opts.get(k) for k in ("config", "match", "version")):
        print(USAGE, end="", file=sys.stderr)
        return 0 if opts.get("help") else 1
    if opts.get("version"):
        print("$CondorVersion: 24.0.24 (condorsim) $")
        return 0
    try:
        config = Config.load(find_config_file(), subsystem="TOOL")
    except ConfigError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    router = load_router_config(config)
    for error in router.errors:
        print(f"ERROR: {error}", file=sys.stderr)
    if not router.enabled:
        for note in router.notes:
            print(note, file=sys.stderr)
        print("JobRouter is disabled.", file=sys.stderr)
    status = 0
    if opts.get("config"):
        print_config(router, sys.stdout)
    if opts.get("match"):
        files = opts["jobads"]
        assert isinstance(files, list)
        if not files:
            print("-match-jobs and -route-jobs need -jobads <file>", file=sys.stderr)
            return 1
        try:
            status = _route_jobs(router, files, opts, sys.stdout, sys.stderr)
        except AdFileError as exc:
            print(f"ERROR: {exc}", file=sys.stderr)
            return 1
    found = [k for k in DEPRECATED if config.get(k)]
    if found:
        print(f"\nWARNING: {', '.join(found)} are deprecated and will be removed for V24 of "
              "HTCondor. New configuration syntax for the job router is defined using "
              "JOB_ROUTER_ROUTE_NAMES and JOB_ROUTER_ROUTE_<name>. Note: The removal will "
              "occur during the lifetime of the HTCondor V23 feature series")  # fmt: skip
    return status
