"""The generic registry: lazy references, duplicates refused, known names in errors."""

import pytest

from rote_hf.registry import Registry, resolve_object


def test_lazy_reference_is_imported_on_first_get():
    reg: Registry = Registry("thing")
    reg.register("join", "os.path:join")
    assert reg.names() == ["join"]
    import os.path

    assert reg.get("join") is os.path.join
    assert resolve_object("os:path.join") is os.path.join


def test_decorator_and_duplicates_and_unknown_names():
    reg: Registry = Registry("suite")

    @reg.register("b")
    def b():
        return 2

    reg.register("a", 1)
    assert reg.get("b") is b and reg.get("a") == 1 and list(reg) == ["a", "b"] and "a" in reg
    with pytest.raises(ValueError, match="suite 'a' is already registered"):
        reg.register("a", 3)
    with pytest.raises(ValueError, match=r"suite must be one of \['a', 'b'\], got 'c'"):
        reg.get("c")


def test_loader_runs_once_before_first_lookup():
    calls = []
    reg: Registry = Registry("model", loader=lambda: (calls.append(1), reg.register("x", 0)))
    assert calls == [] and reg.names() == ["x"] and reg.get("x") == 0 and calls == [1]


@pytest.mark.parametrize("spec", ["os.path", ":join", "os:"])
def test_bad_specs(spec):
    with pytest.raises(ValueError, match="module:object"):
        resolve_object(spec)
    with pytest.raises(AttributeError, match="no attribute"):
        resolve_object("os:no_such_name")
