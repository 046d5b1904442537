"""docs/rules.md "The table and the key card", transcribed for the tests by hand (not imported from
the code under test): (side A, side B) in the card-text letters of docs/design.md,
G agent, X assassin, . bystander -> the number of cells."""

NOTES_PAIRS: dict[tuple[str, str], int] = {
    ("G", "G"): 3,
    ("G", "."): 5,
    (".", "G"): 5,
    ("G", "X"): 1,
    ("X", "G"): 1,
    ("X", "X"): 1,
    ("X", "."): 1,
    (".", "X"): 1,
    (".", "."): 7,
}
