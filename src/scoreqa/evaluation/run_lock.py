"""One run per folder: two identical runs into one folder would make (and pay for) every model call twice."""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from filelock import FileLock, Timeout

LOCK, HOLDER = ".run.lock", ".run.lock.holder"


class RunFolderBusy(RuntimeError):
    """Another process is evaluating into this folder."""


@contextmanager
def run_folder_lock(run_dir: Path, wait_seconds: float = 0.0) -> Iterator[None]:
    """Hold the folder's lock for the run; refuse (after ``wait_seconds``) naming the holder's PID and start."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(run_dir / LOCK))
    try:
        lock.acquire(timeout=wait_seconds)
    except Timeout:
        try:
            holder = json.loads((run_dir / HOLDER).read_text())
        except (OSError, ValueError):
            holder = {}
        raise RunFolderBusy(f"{run_dir} is in use by PID {holder.get('pid', '?')} (started "
                            f"{holder.get('started', '?')}); wait for it to finish, or choose another "
                            "hydra.run.dir") from None
    try:
        (run_dir / HOLDER).write_text(json.dumps({"pid": os.getpid(),
                                                  "started": time.strftime("%Y-%m-%d %H:%M:%S %Z")}))
        yield
    finally:
        lock.release()
