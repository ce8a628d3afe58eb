package prompt

// VideoExpansion is the Expansion of one planned video: with timestamps
// (Qwen3-VL: one per temporal group) one group per timestamp of
// gridH·gridW/merge² pads; without (Qwen2-VL / Qwen2.5-VL) a single run of
// gridT·gridH·gridW/merge² pads. Tokens is the video's total pad
// count in both layouts. A merge below 1 counts as 1.
func VideoExpansion(timestamps []float64, gridT, gridH, gridW, merge int) Expansion {
	merge = max(merge, 1)
	per := gridH * gridW / (merge * merge)
	e := Expansion{Tokens: gridT * per}
	if len(timestamps) == 0 {
		return e
	}
	e.Groups = make([]VideoGroup, len(timestamps))
	for g, sec := range timestamps {
		e.Groups[g] = VideoGroup{Seconds: sec, Tokens: per}
	}
	return e
}
