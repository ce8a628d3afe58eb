package tokenizer

// This file answers: which character stands for which byte in a byte-level
// vocabulary? The GPT-2 table: printable Latin-1 bytes stand for themselves,
// the other 68 bytes for U+0100 onwards, in byte order.

// byteLevelTable is the byte → character table and its inverse.
type byteLevelTable struct {
	char [256]rune
	byte map[rune]byte
}

func newByteLevelTable() *byteLevelTable {
	t := &byteLevelTable{byte: make(map[rune]byte, 256)}
	n := rune(0)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			t.char[b] = rune(b)
		} else {
			t.char[b] = 256 + n
			n++
		}
		t.byte[t.char[b]] = byte(b)
	}
	return t
}

// decodeToken returns the bytes a byte-level token stands for. As tokenizers'
// ByteLevel decoder does, a token with any character outside the table
// stands for its own UTF-8 bytes.
func (t *byteLevelTable) decodeToken(tok string) []byte {
	out := make([]byte, 0, len(tok))
	for _, r := range tok {
		b, ok := t.byte[r]
		if !ok {
			return []byte(tok)
		}
		out = append(out, b)
	}
	return out
}
