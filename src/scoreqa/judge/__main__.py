"""``python -m scoreqa.judge``: judge (question, reference, prediction) pairs from a JSONL file."""

from scoreqa.judge.cli import main

if __name__ == "__main__":
    main()
