"""Pure rules of Anhui mahjong: tiles and notation, hand analysis, the three variants, tables and AI players.

No I/O, no clock, no Discord: every game is a pure function of its seed and its list of actions.
"""
