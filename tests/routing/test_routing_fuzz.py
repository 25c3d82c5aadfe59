"""Whatever the configuration says, reading the router's configuration never raises, and a
route read from it routes any job without raising: problems are TransformErrors in
``RouterConfig.errors`` or a failed ``Routed``."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorsim.classad import ClassAd
from condorsim.config import Config, ConfigError
from condorsim.routing import load_router_config, make_routed_copy
from condorsim.transform import TransformError

VALUE = st.sampled_from([
    "REQUIREMENTS true", "REQUIREMENTS WantJobRouter", "GridResource = \"x\"", "MaxJobs = 3",
    "MaxJobs = $(nope)", "SET A $INT(x)", "EVALSET B 1 +", "if defined MY.x", "endif", "else",
    "DELETE /(/", "COPY /x(.)/ y\\1", "[ Requirements = true; set_A = 1; ]", "/* c */ [ x = ",
    "TargetUniverse = 5", "EditJobInPlace = true", "UNIVERSE vanilla", "NAME other",
    "SendIDTokens = 3", "JobFailureTest = (", "$(A)", "error : no", "x @=end", "@end",
])  # fmt: skip
NAMES = st.lists(st.sampled_from(["A", "B", "NAMES", "Missing"]), max_size=4).map(" ".join)


@st.composite
def configs(draw: st.DrawFn) -> str:
    lines = [f"JOB_ROUTER_ROUTE_NAMES = {draw(NAMES)}"]
    if draw(st.booleans()):
        lines.append("JOB_ROUTER_SOURCE_JOB_CONSTRAINT = true")
    if draw(st.booleans()):
        lines.append(f"JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES = {draw(NAMES)}")
    if draw(st.booleans()):
        lines.append("JOB_ROUTER_USE_DEPRECATED_ROUTER_ENTRIES = true")
        lines.append(f"JOB_ROUTER_ENTRIES = {draw(VALUE)}")
    for name in ("A", "B"):
        for prefix in ("JOB_ROUTER_ROUTE_", "JOB_ROUTER_TRANSFORM_"):
            body = draw(st.lists(VALUE, max_size=4))
            if body:
                lines.append(f"{prefix}{name} @=end\n" + "\n".join(body) + "\n@end")
    return "\n".join(lines) + "\n"


JOB = ClassAd.parse_old('ClusterId = 1\nProcId = 0\nJobUniverse = 5\nOwner = "a"\n'
                        "WantJobRouter = true\nx = 1\n")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=configs())
def test_router_configuration_never_raises(text: str) -> None:
    try:
        config = Config.from_text(text)
    except ConfigError:
        return
    router = load_router_config(config)
    assert all(isinstance(e, TransformError) for e in router.errors)
    for route in router.routes:
        routed = make_routed_copy(JOB, "1.0", route, router)
        assert routed.ok or routed.error
