"""Freed activation memory goes back to the OS during training (glibc's mmap threshold pinned)."""

from __future__ import annotations

import ctypes.util
import platform

import pytest

from scoreqa.training.host_memory import pin_mmap_threshold


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_glibc_accepts_the_pinned_mmap_threshold():
    assert ctypes.util.find_library("c") is not None
    assert pin_mmap_threshold(64 * 1024) is True
