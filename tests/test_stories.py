"""tests/stories.py: a test picked alone from a module's story runs after the tests
before it; a module whose tests share nothing runs only what was picked."""

from __future__ import annotations

import pytest

STORY = """
import pytest

said = []

@pytest.fixture(scope="module")
def chat():
    return said

def test_one(chat):
    chat.append("hello")

def test_two(chat):
    assert chat == ["hello"]
    chat.append("again")

def test_three(chat):
    assert chat == ["hello", "again"]
"""

APART = """
def test_one():
    pass

def test_two():
    pass
"""


@pytest.mark.parametrize("pick", [["test_story.py::test_three"], ["-k", "three"]])
def test_a_test_picked_alone_runs_after_its_story(
    pytester: pytest.Pytester, pick: list[str]
) -> None:
    pytester.makepyfile(test_story=STORY)
    result = pytester.runpytest("-p", "tests.stories", "-p", "no:cacheprovider", *pick)
    result.assert_outcomes(passed=3)


def test_the_stories_second_test_alone_leaves_the_third_out(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_story=STORY)
    result = pytester.runpytest("-p", "tests.stories", "test_story.py::test_two")
    result.assert_outcomes(passed=2)


def test_tests_that_share_nothing_run_as_picked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_apart=APART)
    result = pytester.runpytest("-p", "tests.stories", "test_apart.py::test_two")
    result.assert_outcomes(passed=1)


def test_a_whole_file_runs_as_it_is(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_story=STORY)
    result = pytester.runpytest("-p", "tests.stories")
    result.assert_outcomes(passed=3)
