"""Sound in and out of the companion that is not recognition itself.

``synth``: speech rendered by espeak-ng and Piper into PCM arrays, and the
clips built from it for tests and benchmarks (known onsets, noise, table talk).
"""
