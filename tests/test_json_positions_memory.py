"""json_positions on one long string: the string token is matched without a regex frame per
character (issue 30, item 3: one 100 MB string in a JSON answers file took 13 GB and 21 s)."""

import re
import subprocess
import sys

from hypothesis import given, strategies as st

from answerkey.files import _json

# The pattern before the change: one repeat per character, the same tokens.
ONE_REPEAT_PER_CHARACTER = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")\s*(:)?|([{}\[\],])|([^\s{}\[\],:"]+))', re.DOTALL)


@given(st.text(alphabet='ab"\\:{},[] \n\u00e9', max_size=30), st.data())
def test_the_token_pattern_matches_what_one_repeat_per_character_matched(text, data):
    """At any offset of any text, the same match (span and groups) as the old pattern."""
    offset = data.draw(st.integers(0, len(text)))
    new, old = _json._JSON_TOKEN.match(text, offset), ONE_REPEAT_PER_CHARACTER.match(text, offset)
    assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups()))


UNDER_A_MEMORY_CAP = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
from answerkey.files import json_positions
text = '[{"id": "q1", "answer": "' + "x" * 30_000_000 + '"}]'
print(json_positions(text)[(0, "answer")])
"""


def test_a_30_mb_string_is_located_within_a_1_5_gb_address_space():
    """30 MB of one string: its position is found under a 1.5 GB cap (the old pattern needed about 4 GB)."""
    result = subprocess.run([sys.executable, "-c", UNDER_A_MEMORY_CAP], capture_output=True, text=True, timeout=300)
    assert (result.returncode, result.stdout) == (0, "(1, 15)\n"), result.stderr[-500:]
