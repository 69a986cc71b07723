"""A small HTML tree from the standard library's parser, for tests that read
a rendered fragment as a browser would: elements with their attributes and
their text (every descendant's), found by tag, class or attribute."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Element", "parse_html"]

VOID = frozenset({"area", "br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"})
"""Elements that never have an end tag."""


@dataclass
class Element:
    """One element: its tag, attributes, children and text."""

    tag: str
    attrs: dict[str, str]
    children: list[Element] = field(default_factory=list)
    parts: list[str | Element] = field(default_factory=list)

    @property
    def text(self) -> str:
        """Every descendant's text, in order, an element's apart from its
        neighbours' (as boxes on screen are), spaces collapsed."""
        pieces = [part if isinstance(part, str) else f" {part.text} " for part in self.parts]
        return " ".join("".join(pieces).split())

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> list[Element]:
        """This element and every descendant, in document order."""
        found = [self]
        for child in self.children:
            found += child.iter()
        return found

    def find_all(self, match: Callable[[Element], bool]) -> list[Element]:
        return [element for element in self.iter() if match(element)]

    def by_class(self, name: str) -> list[Element]:
        return self.find_all(lambda element: name in element.classes)

    def by_tag(self, tag: str) -> list[Element]:
        return self.find_all(lambda element: element.tag == tag)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {key: value or "" for key, value in attrs})
        parent = self.stack[-1]
        parent.children.append(element)
        parent.parts.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {key: value or "" for key, value in attrs})
        self.stack[-1].children.append(element)
        self.stack[-1].parts.append(element)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return
        raise AssertionError(f"</{tag}> closes no open element")

    def handle_data(self, data: str) -> None:
        self.stack[-1].parts.append(data)


def parse_html(text: str) -> Element:
    """The tree of ``text``; an end tag that closes nothing fails the test."""
    builder = _Builder()
    builder.feed(text)
    builder.close()
    assert len(builder.stack) == 1, f"unclosed: {[e.tag for e in builder.stack[1:]]}"
    return builder.root
