"""docs/torch.md lists the supported names exactly as the code generates them, so the page
cannot drift: after adding an op, regenerate the section with
`python -m micrograd.torch --list-names`."""

from __future__ import annotations

from conftest import SRC

from micrograd.torch._names import format_markdown

BEGIN = "<!-- supported-names:begin (generated: python -m micrograd.torch --list-names) -->\n"
END = "<!-- supported-names:end -->"


def test_the_docs_page_lists_the_names_the_code_supports():
    page = (SRC.parent / "docs" / "torch.md").read_text(encoding="utf-8")
    listed = page[page.index(BEGIN) + len(BEGIN):page.index(END)]
    assert listed.strip() == format_markdown().strip(), (
        "docs/torch.md's supported names are out of date: paste the output of "
        "`python -m micrograd.torch --list-names` between its supported-names markers")


def test_the_random_functions_the_page_promises_are_supported():
    generated = format_markdown()
    for name in ("Generator", "manual_seed", "rand", "randn", "randint", "randperm",
                 "multinomial", "bernoulli", "get_rng_state", "set_rng_state"):
        assert f"`{name}`" in generated, name
