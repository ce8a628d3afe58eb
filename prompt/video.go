package prompt

import "strconv"

// VideoGroup is one temporal group of a timestamped (Qwen3-VL) video: its
// time in seconds and its pad tokens.
type VideoGroup struct {
	Seconds float64
	Tokens  int
}

// TimestampText is the text before a group: "<" + seconds with one
// decimal (round half to even on the binary value, as Python's {:.1f}) +
// " seconds>".
func TimestampText(seconds float64) string {
	return "<" + strconv.FormatFloat(seconds, 'f', 1, 64) + " seconds>"
}
