"""ClassAds from Python values, for the collector tests."""

from __future__ import annotations

from condorsim.classad import ClassAd, parse_expr


def literal(value: object) -> str:
    """ClassAd text of a Python bool, int, float or str."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def make_ad(exprs: dict[str, str] | None = None, /, **attrs: object) -> ClassAd:
    """A ClassAd with the given literal attributes, plus ``exprs`` given as ClassAd text."""
    ad = ClassAd()
    for name, value in attrs.items():
        ad[name] = parse_expr(literal(value))
    for name, text in (exprs or {}).items():
        ad[name] = parse_expr(text)
    return ad


def slot(name: str, **attrs: object) -> ClassAd:
    """A startd slot ad named ``name`` at 127.0.0.1."""
    base: dict[str, object] = {"MyType": "Machine", "Name": name,
                               "MyAddress": "<127.0.0.1:9618?sock=startd>"}
    base.update(attrs)
    return make_ad(**base)


def schedd(name: str, host: str = "127.0.0.1", **attrs: object) -> ClassAd:
    base: dict[str, object] = {"MyType": "Scheduler", "Name": name,
                               "MyAddress": f"<{host}:9618?sock=schedd>"}
    base.update(attrs)
    return make_ad(**base)
