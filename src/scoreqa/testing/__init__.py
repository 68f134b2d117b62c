"""Test doubles that speak real protocols on loopback (never a fake inside the code under test)."""
