"""The tally the strace scripts keep: each check printed as it is made,
then one summary line and the exit status."""

passed = 0
failures = 0


def check(ok: bool, what: str, detail: str = "") -> None:
    global failures, passed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failures += 1
        print(f"FAIL {what}\n     {detail[:3000]}")


def summary() -> int:
    """Prints the tally; the exit status (1 if any check failed)."""
    print(f"{passed} passed, {failures} failed")
    return 1 if failures else 0
