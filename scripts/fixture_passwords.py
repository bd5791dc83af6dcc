"""Random passwords for the peers' fixture generators (generate-kind-fixtures.py,
generate-openpgp-fixtures.py): ASCII, or with Unicode (accents, CJK, emoji, a combining mark)."""
import random

WIDE = ["é", "ü", "ß", "ñ", "Ж", "я", "λ", "日", "本", "한", "😀", "🔑", "e\u0301"]


def password(unicode):
    """8 to 20 characters, never a blank at either end, a wide one last when `unicode`."""
    ascii_chars = [chr(c) for c in range(0x21, 0x7F)] + [" "]
    chars = [random.choice(WIDE) if unicode and random.random() < 0.5 else random.choice(ascii_chars)
             for _ in range(random.randint(8, 20))]
    chars[0] = random.choice(ascii_chars[:-1])
    chars[-1] = random.choice(WIDE) if unicode else random.choice(ascii_chars[:-1])
    return "".join(chars)
