"""Scores as data: MusicXML/MXL -> bar-numbered ABC (validated through abc2xml) and rendered pages."""
