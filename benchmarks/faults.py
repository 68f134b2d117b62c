"""Fault cases of issue 15, each run as a user would: ``python evaluate.py …`` against the loopback mock and real files.

    python benchmarks/faults.py [--only NAME ...] [--keep DIR]

Prints ``case | expected | observed | rows lost`` and ends with ``faults_ok=N/M``. A case passes when the run
either completes correctly or fails loudly (non-zero exit, a one-line cause, ``complete: false``), and no
answered row is lost ("rows lost": answers already cached that a rerun asked again; "-" when no answer
existed). Baselines (``model=symbolic``) and the mock keep it to a few minutes on a CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from scoreqa.evaluation.run_lock import run_folder_lock  # noqa: E402
from scoreqa.testing.openai_mock import MockOpenAIServer, Reply, echo_last_user_message  # noqa: E402

DATA = Path(os.environ.get("SCOREQA_DATA_ROOT", REPO.parent / "shared" / "data"))
SECRET = "sk-scoreqa-fault-probe-7f3a9c2e1b"
MSU = ["data=msu", "modality=title", "data.limit=2", "logger=none", "bootstrap_resamples=100",
       f"paths.data_root={DATA}"]
FAST = ["backend.backoff_base=0.01", "backend.backoff_cap=0.05"]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    run_dir: Path

    @property
    def metrics(self) -> dict | None:
        path = self.run_dir / "metrics.json"
        return json.loads(path.read_text(), parse_constant=_no_nan) if path.exists() else None

    @property
    def cause(self) -> str:
        """The last non-empty stderr line (the one-line cause of a failed run)."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def one_line_error(self) -> bool:
        return "Traceback" not in self.stderr and self.cause.startswith(("error:", "incomplete run"))

    def leaks(self, secret: str) -> list[str]:
        """Where ``secret`` appears: stdout, stderr or any file of the run folder."""
        places = [name for name, text in (("stdout", self.stdout), ("stderr", self.stderr)) if secret in text]
        places += [str(p.relative_to(self.run_dir)) for p in self.run_dir.rglob("*")
                   if p.is_file() and secret.encode() in p.read_bytes()]
        return places


def _no_nan(token: str) -> float:
    raise ValueError(f"metrics.json holds {token}, which is not JSON")


def evaluate(run_dir: Path | None, *overrides: str, env: dict[str, str] | None = None) -> Result:
    where = [f"hydra.run.dir={run_dir}"] if run_dir else []
    done = subprocess.run([sys.executable, "evaluate.py", *where, *overrides], cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src"), **(env or {})})
    return Result(done.returncode, done.stdout, done.stderr, Path(run_dir) if run_dir else Path())


def merge(base: list[str], *extra: str) -> list[str]:
    """``base`` with the keys ``extra`` sets replaced (Hydra refuses one key given twice)."""
    keys = {o.split("=", 1)[0] for o in extra}
    return [o for o in base if o.split("=", 1)[0] not in keys] + list(extra)


def api(url: str, *extra: str) -> list[str]:
    return merge([*MSU, "backend=openai", "model=deepseek-v3", f"backend.base_url={url}", *FAST], *extra)


KEY_ENV = {"DEEPSEEK_API_KEY": SECRET}


def predictions(run_dir: Path) -> int:
    path = run_dir / "predictions.jsonl"
    return sum(1 for line in path.read_bytes().splitlines() if line.strip()) if path.exists() else 0


# ---- the cases: each returns (ok, observed, rows lost) ------------------------------------------------------------

def api_401(tmp: Path) -> tuple[bool, str, str]:
    reply = Reply.error(401, message=f"Incorrect API key provided: {SECRET}")
    with MockOpenAIServer(lambda body, n: reply) as server:
        r = evaluate(tmp, *api(server.base_url, "backend.concurrency=4"), env=KEY_ENV)
        sent = len(server.requests)
    ok = r.code == 3 and "refused the key" in r.cause and "DEEPSEEK_API_KEY" in r.cause and sent <= 4 \
        and not r.leaks(SECRET)
    return ok, f"exit {r.code}, {sent} request(s) sent, leaks {r.leaks(SECRET) or 'none'}: {r.cause[:90]}", "-"


def api_down(tmp: Path) -> tuple[bool, str, str]:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    r = evaluate(tmp, *api(url, "backend.max_retries=1"), env=KEY_ENV)
    m = r.metrics or {}
    ok = r.code == 3 and m.get("complete") is False and url in r.stdout and "INCOMPLETE RUN" in r.stdout
    return ok, f"exit {r.code}, complete={m.get('complete')}, endpoint named={url in r.stdout}", "-"


def api_timeout(tmp: Path) -> tuple[bool, str, str]:
    with MockOpenAIServer(lambda body, n: Reply(stall_seconds=1.5)) as server:
        began = time.perf_counter()
        r = evaluate(tmp, *api(server.base_url, "backend.timeout=0.3", "backend.max_retries=1",
                               "backend.concurrency=24"), env=KEY_ENV)
        seconds = time.perf_counter() - began
    m = r.metrics or {}
    ok = r.code == 3 and m.get("complete") is False and m.get("n_generation_failures") == 24
    return ok, f"exit {r.code}, {m.get('n_generation_failures')} failed, {seconds:.0f} s, 'timed out' in " \
               f"summary={'timed out' in r.stdout}", "-"


def streak_at_concurrency(tmp: Path) -> tuple[bool, str, str]:
    with MockOpenAIServer(lambda body, n: Reply.error(500)) as server:
        r = evaluate(tmp, *api(server.base_url, "data.limit=13", "backend.concurrency=32", "backend.max_retries=0",
                               "backend.max_consecutive_failures=50"), env=KEY_ENV)
        sent = len(server.requests)
    # 50 failures in completion order, plus at most the 32 already in flight; the other requests are never sent
    ok = r.code == 3 and "50 requests in a row failed" in r.cause and 50 <= sent <= 50 + 32
    return ok, f"exit {r.code}, {sent} of 156 sent: {r.cause[:60]}", "-"


def key_echoed_in_errors(tmp: Path) -> tuple[bool, str, str]:
    reply = Reply.error(500, message=f"upstream rejected header 'Authorization: Bearer {SECRET}'")
    with MockOpenAIServer(lambda body, n: reply) as server:
        r = evaluate(tmp, *api(server.base_url, "backend.max_retries=0"), env=KEY_ENV)
    leaks = r.leaks(SECRET)
    ok = r.code == 3 and not leaks and "<redacted>" in (tmp / "predictions.jsonl").read_text()
    return ok, f"exit {r.code}, secret found in: {leaks or 'nothing'}", "-"


def fail_then_resume(tmp: Path) -> tuple[bool, str, str]:
    def flaky(body: dict, n: int) -> Reply:
        return Reply.error(500) if n < 5 else echo_last_user_message(body, n)

    with MockOpenAIServer(flaky) as server:
        first = evaluate(tmp, *api(server.base_url, "backend.max_retries=0", "backend.concurrency=1"), env=KEY_ENV)
        m1 = first.metrics or {}
        second = evaluate(tmp, *api(server.base_url, "backend.concurrency=1"), env=KEY_ENV)
    m2 = second.metrics or {}
    lost = (m2.get("n_new_generations") or 0) - (m1.get("n_generation_failures") or 0)
    ok = first.code == 3 and m1.get("n_generation_failures") == 5 and second.code == 0 and m2.get("complete") \
        and lost == 0
    return ok, f"exit {first.code} ({m1.get('n_generation_failures')} failed), rerun exit {second.code} asking " \
               f"{m2.get('n_new_generations')}", str(lost)


def all_skipped(tmp: Path) -> tuple[bool, str, str]:
    r = evaluate(tmp, *merge(MSU, "modality=pdf", "data.skip_missing=true", "model=symbolic"))
    try:
        m = r.metrics or {}
        valid = True
    except ValueError:
        m, valid = {}, False
    ok = r.code == 3 and valid and m.get("complete") is False and m.get("n_questions") == 0
    return ok, f"exit {r.code}, metrics.json valid JSON={valid}, complete={m.get('complete')}", "-"


def bad_limit(value: str) -> Callable[[Path], tuple[bool, str, str]]:
    def case(tmp: Path) -> tuple[bool, str, str]:
        r = evaluate(tmp, *merge(MSU, "model=symbolic", f"data.limit={value}"))
        ok = r.code == 2 and r.one_line_error() and "data.limit must be" in r.cause and r.metrics is None
        return ok, f"exit {r.code}: {r.cause[:80]}", "-"
    return case


def tiny_mistyped_path(tmp: Path) -> tuple[bool, str, str]:
    target = tmp / "Qwen3-typo"
    r = evaluate(tmp / "run", *MSU, "model=tiny-qwen3", f"model.name_or_path={target}")
    ok = r.code == 2 and r.one_line_error() and "outside the cache" in r.cause and not target.exists()
    return ok, f"exit {r.code}, folder built={target.exists()}: {r.cause[:70]}", "-"


def hub_id_offline(tmp: Path) -> tuple[bool, str, str]:
    r = evaluate(tmp, *merge(MSU, "data.limit=1", "model=qwen3-0.6b", "model.name_or_path=Qwen/Qwen3-typo-0.6B"),
                 env={"HF_HUB_OFFLINE": "1"})
    ok = r.code == 2 and r.one_line_error() and "model.name_or_path=Qwen/Qwen3-typo-0.6B" in r.cause
    return ok, f"exit {r.code}: {r.cause[:80]}", "-"


def bad_temperature(tmp: Path) -> tuple[bool, str, str]:
    r = evaluate(tmp, *MSU, "model=symbolic", "sampling.temperature=-1")
    ok = r.code == 2 and r.one_line_error() and "sampling.temperature" in r.cause
    return ok, f"exit {r.code}: {r.cause[:80]}", "-"


def variants_keep_their_folders(tmp: Path) -> tuple[bool, str, str]:
    runs = [["judge=exact"], ["judge=rules"], ["judge=exact", "data.limit=1"], ["judge=exact", "sampling=greedy"]]
    dirs = []
    for extra in runs:
        r = evaluate(None, *merge(MSU, "model=symbolic", f"paths.log_dir={tmp}", *extra))
        dirs += [p.parent for p in tmp.rglob("metrics.json") if p.parent not in dirs]
        if r.code != 0:
            return False, f"exit {r.code}: {r.cause[:80]}", "-"
    ok = len(dirs) == len(runs)
    return ok, f"{len(runs)} variants -> {len(dirs)} folders with their own metrics.json", "-"


def adapter_folder(tmp: Path) -> tuple[bool, str, str]:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    from scoreqa.config import register_resolvers

    register_resolvers()
    folders = []
    for extra in ([], [f"model.adapter={tmp}/lora-a"], [f"model.adapter={tmp}/lora-b"]):
        GlobalHydra.instance().clear()
        with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
            cfg = compose("evaluate", ["model=qwen3-0.6b", *extra], return_hydra_config=True)
            HydraConfig.instance().set_config(cfg)
            folders.append(OmegaConf.select(cfg, "hydra.run.dir"))
    ok = len(set(folders)) == 3 and "lora-lora-a-" in folders[1]
    return ok, f"base, adapter a, adapter b -> {len(set(folders))} folders (…/{Path(folders[1]).name})", "-"


def msu_recipes(tmp: Path) -> tuple[bool, str, str]:
    from scoreqa.cluster.cells import sweep_cells

    os.chdir(REPO)
    wrong = []
    for recipe, program in (("msu_text_grid", "evaluate"), ("msu_vl_grid", "evaluate"), ("msu_api_grid", "evaluate"),
                            ("lora_lr_rank", "train")):
        for cell in sweep_cells(["hydra.searchpath=[file://sweeps]", f"+recipe={recipe}"], config_name=program)[:1]:
            names = dict(o.split("=", 1) for o in cell if "=" in o)
            if names.get("data", "msu") != "msu":
                wrong.append(recipe)
        text = (REPO / "sweeps" / "recipe" / f"{recipe}.yaml").read_text()
        if "override /data: msu" not in text:
            wrong.append(recipe)
    wandb = (REPO / "sweeps" / "wandb" / "msu_grid.yaml").read_text()
    if "data:\n    value: msu" not in wandb:
        wrong.append("wandb/msu_grid")
    return not wrong, f"recipes not selecting MSU: {wrong or 'none'} (tests/test_sweeps.py composes every cell)", "-"


def second_run_refused(tmp: Path) -> tuple[bool, str, str]:
    with run_folder_lock(tmp):
        r = evaluate(tmp, *MSU, "model=symbolic")
    ok = r.code == 2 and f"PID {os.getpid()}" in r.cause and predictions(tmp) == 0
    return ok, f"exit {r.code}, {predictions(tmp)} calls made: {r.cause[:80]}", "-"


def _cached_run(tmp: Path) -> tuple[Result, int]:
    first = evaluate(tmp, *MSU, "model=symbolic")
    return first, predictions(tmp)


def torn_utf8_row(tmp: Path) -> tuple[bool, str, str]:
    first, rows = _cached_run(tmp)
    row = json.dumps({"run_key": "x", "key": "torn", "text": "Dvořák – Symphonie"}, ensure_ascii=False).encode()
    with (tmp / "predictions.jsonl").open("ab") as handle:
        handle.write(row[: row.index("ř".encode()) + 1])  # cut inside the two-byte ř, as a kill can leave it
    again = evaluate(tmp, *MSU, "model=symbolic")
    m = again.metrics or {}
    named = f"predictions.jsonl:{rows + 1} is not a complete JSON row" in again.stdout + again.stderr
    ok = first.code == 0 and again.code == 0 and m.get("n_new_generations") == 0 and named
    return ok, f"rerun exit {again.code}, new generations {m.get('n_new_generations')}, warning names file:line=" \
               f"{named}", str(m.get("n_new_generations", rows))


def non_object_rows(tmp: Path) -> tuple[bool, str, str]:
    first, rows = _cached_run(tmp)
    with (tmp / "predictions.jsonl").open("a") as handle:
        handle.write('[1, 2]\n42\n{"run_key": "x", "text": "no key"}\n"text"\n')
    with (tmp / "judgments.jsonl").open("a") as handle:
        handle.write('[1]\n{"judge_key": "x"}\n')
    again = evaluate(tmp, *MSU, "model=symbolic")
    m = again.metrics or {}
    ok = again.code == 0 and m.get("n_new_generations") == 0
    return ok, f"rerun exit {again.code}, new generations {m.get('n_new_generations')}", \
        str(m.get("n_new_generations", rows))


def _score_dir(tmp: Path, bad_inside: bool) -> tuple[Path, str]:
    """ABC files for the first two test scores; one non-UTF-8 file for a score inside or outside them."""
    sys.path.insert(0, str(REPO / "src"))
    from scoreqa.data.msu import MSUBench
    from scoreqa.data.split import select_split

    bench = MSUBench(tables_dir=str(DATA / "msu"), split="all")
    _, questions = bench.read_all()
    order = list(dict.fromkeys(q.score_id for q in questions))
    test = select_split(order, "test", 0)[:2]
    outside = next(s for s in order if s not in test)
    folder = tmp / "scores"
    folder.mkdir(parents=True, exist_ok=True)
    for score_id in test:
        (folder / f"{score_id}.abc").write_text("X:1\nT:t\nM:4/4\nK:C\nCDEF|GABc|\n", encoding="utf-8")
    bad = test[1] if bad_inside else outside
    (folder / f"{bad}.abc").write_bytes(b"X:1\nT:Dvo\xf8r\xe1k\nK:C\nCDEF|\n")  # Latin-1, not UTF-8
    return folder, bad


def bad_abc_outside_split(tmp: Path) -> tuple[bool, str, str]:
    folder, _ = _score_dir(tmp, bad_inside=False)
    r = evaluate(tmp / "run", *merge(MSU, "modality=abc", "model=symbolic", f"data.score_dir={folder}"))
    m = r.metrics or {}
    ok = r.code == 0 and m.get("n_scores") == 2
    return ok, f"exit {r.code}, {m.get('n_scores')} scores evaluated", "-"


def bad_abc_inside_split(tmp: Path) -> tuple[bool, str, str]:
    folder, bad = _score_dir(tmp, bad_inside=True)
    r = evaluate(tmp / "run", *merge(MSU, "modality=abc", "model=symbolic", f"data.score_dir={folder}"))
    ok = r.code == 2 and r.one_line_error() and f"{bad}.abc" in r.cause and f"score {bad}" in r.cause
    return ok, f"exit {r.code}: {r.cause[:90]}", "-"


def xlsx_not_a_zip(tmp: Path) -> tuple[bool, str, str]:
    tables = tmp / "tables"
    tables.mkdir()
    for name in ("msu-bench.xlsx", "metadata.xlsx"):
        (tables / name).write_text("<html>404 Not Found</html>")
    r = evaluate(tmp / "run", *MSU, "model=symbolic", f"data.tables_dir={tables}")
    ok = r.code == 2 and r.one_line_error() and str(tables / "msu-bench.xlsx") in r.cause
    return ok, f"exit {r.code}: {r.cause[:90]}", "-"


def wandb_every_benchmark(tmp: Path) -> tuple[bool, str, str]:
    r = evaluate(tmp, "data=abc_eval", "model=symbolic", f"paths.data_root={DATA}", env={"WANDB_MODE": "offline"})
    runs = list((tmp / "wandb").glob("offline-run-*/run-*.wandb"))
    ok = r.code == 0 and "-- by subtask" in r.stdout and "Bar_Sequencing" in r.stdout and len(runs) == 1
    return ok, f"abc_eval symbolic, W&B offline: exit {r.code}, subtask table={'-- by subtask' in r.stdout}, " \
               f"offline runs {len(runs)}", "-"


def key_on_command_line(tmp: Path) -> tuple[bool, str, str]:
    r = evaluate(tmp, *merge(MSU, "logger=wandb", "model=symbolic", f"+model.api_key={SECRET}"),
                 env={"WANDB_MODE": "offline"})
    leaks = r.leaks(SECRET)
    ok = r.code == 0 and not leaks and (tmp / ".hydra" / "overrides.yaml").exists()
    return ok, f"exit {r.code}, secret found in: {leaks or 'nothing'} (config.yaml, .hydra/, wandb/ checked)", "-"


CASES: dict[str, tuple[str, Callable[[Path], tuple[bool, str, str]]]] = {
    "api 401 (key echoed)": ("exit 3 at once, fix named, no key anywhere", api_401),
    "api server down": ("exit 3, incomplete, URL in summary", api_down),
    "api always times out": ("exit 3, incomplete, bounded", api_timeout),
    "62+ failures at concurrency 32": ("streak of 50 stops the run", streak_at_concurrency),
    "server echoes Bearer key": ("exit 3, key in no row/log/stdout", key_echoed_in_errors),
    "5 failures, then rerun": ("exit 3, rerun asks only the 5", fail_then_resume),
    "all scores skipped": ("exit 3, valid JSON, complete=false", all_skipped),
    "data.limit=-1": ("exit 2, one line", bad_limit("-1")),
    "data.limit=0": ("exit 2, one line", bad_limit("0")),
    "tiny model, mistyped path": ("exit 2, nothing built", tiny_mistyped_path),
    "sampling.temperature=-1": ("exit 2 before loading", bad_temperature),
    "hub id unreachable offline": ("exit 2 naming model.name_or_path", hub_id_offline),
    "judge/limit/sampling variants": ("one folder each", variants_keep_their_folders),
    "adapter vs base folder": ("distinct folders", adapter_folder),
    "MSU recipes select MSU": ("data=msu in every recipe", msu_recipes),
    "second run, same folder": ("exit 2 naming PID, no calls", second_run_refused),
    "row torn inside UTF-8 char": ("rerun exit 0, nothing re-asked", torn_utf8_row),
    "non-object / keyless rows": ("rerun exit 0, nothing re-asked", non_object_rows),
    "non-UTF-8 .abc outside split": ("run unaffected", bad_abc_outside_split),
    "non-UTF-8 .abc inside split": ("exit 2 naming file + score", bad_abc_inside_split),
    "xlsx that is not a zip": ("exit 2 naming the path", xlsx_not_a_zip),
    "W&B on ABC-Eval (symbolic)": ("exit 0, subtask table, offline run", wandb_every_benchmark),
    "key passed on command line": ("in no file (.hydra, W&B)", key_on_command_line),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="substrings of case names to run")
    parser.add_argument("--keep", type=Path, help="keep the run folders here (default: a temporary folder)")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="scoreqa-faults-"))
    os.environ.setdefault("SCOREQA_CACHE_DIR", str(root / "cache"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    chosen = {k: v for k, v in CASES.items() if not args.only or any(s in k for s in args.only)}
    rows, passed = [], 0
    for index, (name, (expected, case)) in enumerate(chosen.items()):
        folder = root / f"case-{index:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        try:
            ok, observed, lost = case(folder)
        except Exception as error:  # a case that crashes is a failed case, reported like the others
            ok, observed, lost = False, f"case crashed: {type(error).__name__}: {error}"[:120], "?"
        passed += ok
        rows.append((name, expected, ("ok   " if ok else "FAIL ") + observed, lost))
        print(f"{name} | {expected} | {rows[-1][2]} | {lost}", file=sys.stderr, flush=True)
    widths = [max(len(r[i]) for r in rows + [("case", "expected", "observed", "rows lost")]) for i in range(4)]
    for row in [("case", "expected", "observed", "rows lost"), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    print(f"faults_ok={passed}/{len(rows)}")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
