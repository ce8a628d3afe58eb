package benchgw

import "strings"

// transportsInReply counts the images a reply says arrived via shm and via
// inline. An image line of the reference worker's reply reads
// "image 1: grid 1x30x40, bfloat16 via shm, crc32c 1a2b3c4d"; its last
// "via shm" or "via inline" that stands as words decides. A reply from
// another worker yields zeros.
func transportsInReply(text string) (shm, inline int) {
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "image ")
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if !ok || n == 0 || !strings.HasPrefix(rest[n:], ": ") {
			continue
		}
		switch lastVia(rest[n+2:]) {
		case "shm":
			shm++
		case "inline":
			inline++
		}
	}
	return shm, inline
}

// lastVia is the transport of the last "via shm" or "via inline" in s with
// a word boundary on either side, or "".
func lastVia(s string) string {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], "via ")
		if i < 0 {
			return ""
		}
		end = i
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		after := s[i+4:]
		for _, t := range []string{"shm", "inline"} {
			if strings.HasPrefix(after, t) && (len(after) == len(t) || !isWordByte(after[len(t)])) {
				return t
			}
		}
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
