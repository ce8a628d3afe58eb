package benchgw

import (
	"regexp"
	"strings"
)

// replyImage matches one image line of the reference worker's reply:
// "image 1: grid 1x30x40, bfloat16 via shm, crc32c 1a2b3c4d".
var replyImage = regexp.MustCompile(`(?m)^image \d+: .*\bvia (shm|inline)\b`)

// transportsInReply counts the images a reply says arrived via shm and via
// inline. A reply from another worker yields zeros.
func transportsInReply(text string) (shm, inline int) {
	if !strings.Contains(text, "image ") {
		return 0, 0
	}
	for _, m := range replyImage.FindAllStringSubmatch(text, -1) {
		if m[1] == "shm" {
			shm++
		} else {
			inline++
		}
	}
	return shm, inline
}
