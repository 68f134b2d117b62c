"""Measure numbers as every output shows them: the MusicXML ``number`` attribute, pickup = 0.

The ABC ``%N`` comments, verovio's printed bar numbers and the questions' "In measure N" all
read the same attribute, so they agree by construction. The one rewrite: a pickup (anacrusis)
bar that the file numbers 1 becomes 0 and the bars after it shift down by one, which is how
MSU-Bench (and printed editions) count.
"""

from __future__ import annotations

from fractions import Fraction
from xml.etree import ElementTree as ET


def measure_labels(root: ET.Element) -> list[str]:
    """The ``number`` of each measure of the first part, in document order."""
    first = root.find("part")
    return [m.get("number", "") for m in first.findall("measure")] if first is not None else []


def nominal_length(root: ET.Element) -> Fraction | None:
    """Quarter notes per bar of the opening time signature (``None`` when the score has none)."""
    time = root.find("part/measure/attributes/time")
    if time is None or time.findtext("beats") is None or time.findtext("beat-type") is None:
        return None
    try:
        beats = sum(Fraction(b) for b in time.findtext("beats").split("+"))
        return beats * 4 / Fraction(time.findtext("beat-type"))
    except (ValueError, ZeroDivisionError):
        return None


def measure_length(measure: ET.Element, divisions: int) -> Fraction:
    """Quarter notes the measure's notes span (the furthest point any voice reaches)."""
    position = furthest = 0
    for element in measure:
        duration = element.findtext("duration")
        if element.tag == "note" and duration is not None and element.find("chord") is None \
                and element.find("grace") is None:
            position += int(duration)
        elif element.tag == "forward" and duration is not None:
            position += int(duration)
        elif element.tag == "backup" and duration is not None:
            position -= int(duration)
        furthest = max(furthest, position)
    return Fraction(furthest, divisions or 1)


def first_divisions(root: ET.Element) -> int:
    text = root.findtext("part/measure/attributes/divisions")
    try:
        return int(float(text)) if text else 1
    except ValueError:
        return 1


def has_pickup(root: ET.Element) -> bool:
    """The first bar is an anacrusis: marked implicit, or shorter than the opening time signature."""
    measures = root.findall("part/measure")
    if len(measures) < 2:
        return False
    first = root.find("part/measure")
    if first.get("implicit") == "yes":
        return True
    nominal = nominal_length(root)
    if nominal is None:
        return False
    return Fraction(0) < measure_length(first, first_divisions(root)) < nominal


def renumber_measures(root: ET.Element) -> list[str]:
    """Make a pickup bar number 0 in every part (in place); returns the labels of the first part."""
    labels = measure_labels(root)
    if not labels or not has_pickup(root) or labels[0] == "0" or not labels[0].isdigit():
        return labels
    offset = int(labels[0])
    shift_all = len(labels) > 1 and labels[1].isdigit() and int(labels[1]) == offset + 1
    for part in root.findall("part"):
        for index, measure in enumerate(part.findall("measure")):
            number = measure.get("number", "")
            if index == 0:
                measure.set("number", "0")
            elif shift_all and number.isdigit():
                measure.set("number", str(int(number) - offset))
    return measure_labels(root)
