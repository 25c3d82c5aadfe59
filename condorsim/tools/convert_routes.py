"""``condorsim transform_ads -convertoldroutes``: old ClassAd routes printed as transforms.

How this works
--------------
As condor_transform_ads does (``ConvertJobRouterRoutes``): without a file, the routes of
``JOB_ROUTER_ENTRIES`` (then ``JOB_ROUTER_ENTRIES_FILE``) of the pool's configuration,
each merged over ``JOB_ROUTER_DEFAULTS``, are printed as ``##### JOB_ROUTER_ENTRIES [n]
#####`` blocks; with ``-convertoldroutes:file F`` the configuration summary ``F`` of
another pool is read (defaults equal to ``JOB_ROUTER_DEFAULTS_GENERATED`` dropped), and
each route is printed as a ``JOB_ROUTER_ROUTE_<name> @=jre`` block, followed by the
``JOB_ROUTER_ROUTE_NAMES`` line when that configuration has none.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from condorsim.config import Config, ConfigError
from condorsim.transform import (
    Transform,
    convert_route_ad,
    defaults_ad,
    parse_transform,
    split_route_ads,
)

__all__ = ["convert_old_routes"]


def _read(path: str) -> str:
    return Path(path).read_text(encoding="utf-8", errors="surrogateescape")


def convert_old_routes(summary: str, config: Config) -> int:
    """Print the old routes (of ``config``, or of the summary file ``summary`` if not "")."""
    if summary:
        try:
            config = Config.from_text(_read(summary), name=summary)
        except (OSError, ConfigError) as exc:
            print(f"Failed to open ceconfig file '{summary}': {exc}", file=sys.stderr)
            return 1
    base = defaults_ad(config.get("JOB_ROUTER_DEFAULTS") or "", "JOB_ROUTER_DEFAULTS",
                       config.get_bool("MERGE_JOB_ROUTER_DEFAULT_ADS", False))  # fmt: skip
    if summary:
        generated = defaults_ad(config.get("JOB_ROUTER_DEFAULTS_GENERATED") or "",
                                "JOB_ROUTER_DEFAULTS_GENERATED")  # fmt: skip
        for name, tree in generated.pairs():
            if base.lookup(name) == tree:
                del base[name]
    names: list[str] = []
    entries = config.get("JOB_ROUTER_ENTRIES") or ""
    for index, ad in enumerate(split_route_ads(entries, "JOB_ROUTER_ENTRIES"), start=1):
        merged = base.copy()
        merged.update(ad)
        converted = convert_route_ad(merged, "", old_ce=bool(summary))
        transform = parse_transform(converted.text, source="JOB_ROUTER_ENTRIES", name=converted.name)
        if summary:
            tag = "".join(c if c.isalnum() or c == "_" else "_" for c in transform.name)
            if not tag:
                continue
            names.append(tag)
            shown = transform if tag != transform.name else _renamed(transform, "")
            print(f"\n##### Route {len(names)}\nJOB_ROUTER_ROUTE_{tag} @=jre")
            print(shown.formatted("   ", comments=True))
            print("@jre")
        else:
            print(f"\n##### JOB_ROUTER_ENTRIES [{index}] #####")
            print(transform.formatted("", comments=True))
    entries_file = config.get("JOB_ROUTER_ENTRIES_FILE")
    if summary and entries_file:
        print(f"need JOB_ROUTER_ENTRIES_FILE {entries_file}")
    elif entries_file:
        try:
            text = _read(entries_file)
        except OSError:
            print(f"Failed to open '{entries_file}' file specified for JOB_ROUTER_ENTRIES_FILE",
                  file=sys.stderr)  # fmt: skip
            text = ""
        for index, ad in enumerate(split_route_ads(text, entries_file), start=1):
            merged = base.copy()
            merged.update(ad)
            converted = convert_route_ad(merged, "")
            transform = parse_transform(converted.text, source=entries_file, name=converted.name)
            print(f"\n##### JOB_ROUTER_ENTRIES_FILE [{index}] #####")
            print(transform.formatted("", comments=True))
    if summary and config.get("JOB_ROUTER_ROUTE_NAMES") is None:
        print(f"\nJOB_ROUTER_ROUTE_NAMES = {' '.join(names)}")
    return 0


def _renamed(transform: Transform, name: str) -> Transform:
    return replace(transform, name=name)
