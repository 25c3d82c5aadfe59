"""``python -m daemons.master``: the master as a process of its own (``condorsim up``)."""

import sys

from condorsim.runtime.process import daemon_main

from .master import ChildOptions, Master

if __name__ == "__main__":
    sys.exit(
        daemon_main(
            "MASTER",
            lambda args: Master(
                ChildOptions(
                    run_dir=args.run_dir, config_path=args.config, clock=args.clock,
                    speed=args.speed, seed=args.seed, trace_path=args.trace,
                )
            ),
        )
    )
