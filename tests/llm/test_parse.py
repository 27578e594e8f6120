"""The reply parser on a table of tricky replies (mdl.md §9.2; the paper's 12 lost calls among them)."""

from __future__ import annotations

import json

import pytest

from rote_hf.llm import ParsedResponse, api_error, parse_response

GOOD = '{"next_three": [1, 2, 3], "formula": "a(n) = n", "confidence": 4, "recognized": true, "name_if_recognized": "naturals"}'
ABST = '{"next_three": [5, 8, 13], "formula": "NO_FORMULA_FOUND", "confidence": 2, "recognized": false, "name_if_recognized": ""}'
BIG = 10**40 + 7

# (id, reply, expected: status, next_terms, abstained, confidence, recognized)  None = field not checked
OK, NJ, BJ, SE = "ok", "no_json", "bad_json", "schema_error"
CASES = [
    ("plain", GOOD, OK, (1, 2, 3), False, 4, True),
    ("abstain", ABST, OK, (5, 8, 13), True, 2, False),
    ("prose_before", "Looking at this sequence, the differences are 1.\n\n" + GOOD, OK, (1, 2, 3), False, 4, True),
    ("prose_after", GOOD + "\n\nI am fairly sure because the differences are constant.", OK, (1, 2, 3), False, 4, True),
    ("prose_both", "Answer:\n" + GOOD + "\nHope this helps!", OK, (1, 2, 3), False, 4, True),
    ("fence_json", "```json\n" + GOOD + "\n```", OK, (1, 2, 3), False, 4, True),
    ("fence_plain", "```\n" + ABST + "\n```", OK, (5, 8, 13), True, 2, False),
    ("fence_with_prose", "Here you go:\n```json\n" + GOOD + "\n```\nDone.", OK, (1, 2, 3), False, 4, True),
    ("two_objects_last_wins", ABST + "\n" + GOOD, OK, (1, 2, 3), False, 4, True),
    ("extra_data_paper", '{"a": 1}{"next_three": [7, 7, 7], "formula": "a(n)=7", "confidence": 5, "recognized": false}',
     OK, (7, 7, 7), False, 5, False),
    ("draft_then_final", 'Draft: {"next_three": [0, 0, 0]} ... final: ' + GOOD, OK, (1, 2, 3), False, 4, True),
    ("schema_obj_then_note", GOOD + ' Note: {x} is not a set.', OK, (1, 2, 3), False, 4, True),
    ("truncated_in_json", 'Looking at this sequence: {"next_three": [428, 435, ', BJ, (), False, None, None),
    ("truncated_before_json", "Looking at this sequence, let me analyze the differences.\n\nFirst differences:\n24, 144, 456",
     NJ, (), False, None, None),
    ("empty", "", NJ, (), False, None, None),
    ("whitespace", "   \n\t ", NJ, (), False, None, None),
    ("none", None, NJ, (), False, None, None),
    ("none_string_paper", "None", NJ, (), False, None, None),
    ("malformed_missing_commas", '{"next_three": [1 2 3] "formula": x}', BJ, (), False, None, None),
    ("malformed_paper_property", "{next_three: [1, 2, 3], formula: 'x'}", BJ, (), False, None, None),
    ("single_quotes", "{'next_three': [1, 2, 3], 'formula': 'a(n)=n', 'confidence': 4, 'recognized': True}",
     OK, (1, 2, 3), False, 4, True),
    ("trailing_commas", '{"next_three": [1, 2, 3,], "formula": "a(n)=n", "confidence": 4, "recognized": true,}',
     OK, (1, 2, 3), False, 4, True),
    ("single_quotes_json_words", "{'next_three': [1, 2, 3], 'formula': 'n', 'confidence': 3, 'recognized': false, 'name_if_recognized': null}",
     OK, (1, 2, 3), False, 3, False),
    ("smart_quotes", "{\u201cnext_three\u201d: [1, 2, 3], \u201cformula\u201d: \u201cn\u201d, \u201cconfidence\u201d: 4, \u201crecognized\u201d: false}",
     OK, (1, 2, 3), False, 4, False),
    ("numbers_as_strings", '{"next_three": ["1", "2", "-3"], "formula": "x", "confidence": "4", "recognized": "false"}',
     OK, (1, 2, -3), False, 4, False),
    ("terms_one_string", '{"next_three": "1, 2, 3", "formula": "x", "confidence": 4, "recognized": false}',
     OK, (1, 2, 3), False, 4, False),
    ("huge_integers", '{"next_three": [%d, %d, %d], "formula": "x", "confidence": 5, "recognized": true}' % (BIG, -BIG, BIG + 1),
     OK, (BIG, -BIG, BIG + 1), False, 5, True),
    ("huge_integer_strings", '{"next_three": ["%d", "2", "3"], "formula": "x", "confidence": 5, "recognized": true}' % BIG,
     OK, (BIG, 2, 3), False, 5, True),
    ("integer_too_long", '{"next_three": [%s, 2, 3], "formula": "x", "confidence": 5, "recognized": true}' % ("9" * 4500),
     SE, (), False, None, None),
    ("integral_floats", '{"next_three": [1.0, 2.0, 3.0], "formula": "x", "confidence": 4.0, "recognized": false}',
     OK, (1, 2, 3), False, 4, False),
    ("non_integral_float", '{"next_three": [1.5, 2, 3], "formula": "x", "confidence": 4, "recognized": false}',
     SE, (), False, None, None),
    ("bool_yes", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": "yes"}', OK, (1, 2, 3), False, 4, True),
    ("bool_No", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": "No"}', OK, (1, 2, 3), False, 4, False),
    ("bool_1", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": 1}', OK, (1, 2, 3), False, 4, True),
    ("bool_TRUE_string", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": "TRUE"}', OK, (1, 2, 3), False, 4, True),
    ("bool_maybe", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": "maybe"}', SE, (), False, None, None),
    ("recognized_missing", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4}', OK, (1, 2, 3), False, 4, None),
    ("confidence_high_clamped", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 9, "recognized": true}', OK, (1, 2, 3), False, 5, True),
    ("confidence_zero_clamped", '{"next_three": [1, 2, 3], "formula": "x", "confidence": 0, "recognized": true}', OK, (1, 2, 3), False, 1, True),
    ("confidence_slash_5", '{"next_three": [1, 2, 3], "formula": "x", "confidence": "4/5", "recognized": true}', OK, (1, 2, 3), False, 4, True),
    ("confidence_word", '{"next_three": [1, 2, 3], "formula": "x", "confidence": "high", "recognized": true}', SE, (), False, None, None),
    ("confidence_missing", '{"next_three": [1, 2, 3], "formula": "x", "recognized": true}', OK, (1, 2, 3), False, None, True),
    ("two_terms", '{"next_three": [1, 2], "formula": "x", "confidence": 4, "recognized": true}', SE, (), False, None, None),
    ("four_terms", '{"next_three": [1, 2, 3, 4], "formula": "x", "confidence": 4, "recognized": true}', SE, (), False, None, None),
    ("terms_missing", '{"formula": "a(n)=n", "confidence": 4, "recognized": true}', SE, (), False, None, None),
    ("terms_missing_abstain", '{"formula": "NO_FORMULA_FOUND", "confidence": 1, "recognized": false}', OK, (), True, 1, False),
    ("terms_null_abstain", '{"next_three": null, "formula": "NO_FORMULA_FOUND", "confidence": 1, "recognized": false}', OK, (), True, 1, False),
    ("formula_missing", '{"next_three": [1, 2, 3], "confidence": 4, "recognized": true}', SE, (), False, None, None),
    ("formula_list", '{"next_three": [1, 2, 3], "formula": ["x"], "confidence": 4, "recognized": true}', SE, (), False, None, None),
    ("abstain_lowercase_spaces", '{"next_three": [1, 2, 3], "formula": "  no_formula_found. ", "confidence": 2, "recognized": false}',
     OK, (1, 2, 3), True, 2, False),
    ("abstain_in_sentence_is_not", '{"next_three": [1, 2, 3], "formula": "NO_FORMULA_FOUND but maybe n^2", "confidence": 2, "recognized": false}',
     OK, (1, 2, 3), False, 2, False),
    ("negative_terms", '{"next_three": [-1, -22, -333], "formula": "x", "confidence": 3, "recognized": false}', OK, (-1, -22, -333), False, 3, False),
    ("bool_terms", '{"next_three": [true, false, true], "formula": "x", "confidence": 3, "recognized": false}', SE, (), False, None, None),
    ("wrapped_answer", '{"answer": ' + GOOD + '}', OK, (1, 2, 3), False, 4, True),
    ("array_around", "[" + GOOD + "]", OK, (1, 2, 3), False, 4, True),
    ("braces_in_formula_string", '{"next_three": [1, 2, 3], "formula": "a(n) = {n : n > 0}", "confidence": 4, "recognized": false}',
     OK, (1, 2, 3), False, 4, False),
    ("stray_open_brace_in_prose", "The set {1, 2, 3 is odd. " + GOOD, OK, (1, 2, 3), False, 4, True),
    ("uppercase_keys", '{"Next_Three": [1, 2, 3], "Formula": "x", "Confidence": 4, "Recognized": true}', OK, (1, 2, 3), False, 4, True),
    ("non_schema_object_only", '{"answer": 42}', SE, (), False, None, None),
    ("think_tags", "<think>maybe {1,2}? no</think>\n" + GOOD, OK, (1, 2, 3), False, 4, True),
    ("number_only", "42", NJ, (), False, None, None),
    ("empty_object", "{}", SE, (), False, None, None),
    ("prose_braces_cut_before_json", "Let {a_n} be the sequence; the set {1, 2, 3} of first differences is", NJ, (), False, None, None),
    ("many_stray_braces_then_json", "Consider {a_n} and the set {1, 2 " * 200 + "\n" + GOOD, OK, (1, 2, 3), False, 4, True),
]

REPLY = {c[0]: c[1] for c in CASES}


def test_table_is_large_enough():
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_parse_table(case):
    _, reply, status, terms, abstained, confidence, recognized = case
    got = parse_response(reply)
    assert got.status == status, got.error
    assert got.next_terms == terms
    if status == "ok":
        assert (got.abstained, got.confidence, got.recognized) == (abstained, confidence, recognized)
        assert got.error == ""
    else:
        assert got.error != ""


def test_notes_record_repairs():
    assert parse_response(REPLY["single_quotes"]).notes == ("repaired_json",)
    assert "confidence_clamped" in parse_response(REPLY["confidence_high_clamped"]).notes
    assert "several_objects" in parse_response(REPLY["two_objects_last_wins"]).notes
    assert parse_response(GOOD).notes == ()
    assert parse_response(GOOD).name == "naturals"


def test_k_next_parameter_and_round_trip():
    five = '{"next_5": [1, 2, 3, 4, 5], "formula": "n", "confidence": 3, "recognized": false}'
    assert parse_response(five, k_next=5).next_terms == (1, 2, 3, 4, 5)
    assert parse_response(five, k_next=3).status == "schema_error"
    got = parse_response(REPLY["huge_integers"])
    back = ParsedResponse.from_dict(json.loads(json.dumps(got.to_dict())))
    assert back == got and back.next_terms[0] == BIG
    assert api_error("HTTP 503").status == "api_error"
    with pytest.raises(TypeError, match="text"):
        parse_response(b"{}")
    with pytest.raises(ValueError, match="k_next"):
        parse_response(GOOD, k_next=0)
    with pytest.raises(ValueError, match="status"):
        ParsedResponse(status="weird")
