package openai

import (
	"encoding/base64"
	"strings"
	"testing"
)

func BenchmarkParseImageRequest(b *testing.B) {
	img := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\xff\xd8 jpeg bytes ", 26000)))
	body := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + img + `"}},{"type":"text","text":"Describe this image."}]}]}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := ParseChat(body); err != nil {
			b.Fatal(err)
		}
	}
}
