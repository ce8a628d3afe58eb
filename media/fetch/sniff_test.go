package fetch

import "testing"

func TestMIMEMismatch(t *testing.T) {
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	webp := []byte("RIFF\x00\x00\x00\x00WEBPVP8 ")
	mp4 := []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00")
	mov := []byte("\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00")
	tests := []struct {
		declared string
		b        []byte
		mismatch bool
	}{
		{"image/jpeg", jpeg, false},
		{"image/jpg", jpeg, false},
		{"IMAGE/JPEG; q=1", jpeg, false},
		{"image/png", jpeg, true},
		{"image/webp", png, true},
		{"image/webp", webp, false},
		{"video/mp4", mov, false},
		{"video/quicktime", mp4, false},
		{"video/webm", mp4, true},
		{"", png, false},
		{"application/octet-stream", png, false},
		{"text/plain", png, false},
		{"image/png", []byte("garbage"), false},
		{"image/png", nil, false},
	}
	for _, tt := range tests {
		if got := MIMEMismatch(tt.declared, tt.b); got != tt.mismatch {
			t.Errorf("MIMEMismatch(%q, %q) = %v", tt.declared, tt.b, got)
		}
	}
	for b, want := range map[string]string{
		string(jpeg): "image/jpeg", string(png): "image/png", "GIF89a....": "image/gif",
		string(webp): "image/webp", "BM\x00\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00": "image/bmp",
		"II*\x00": "image/tiff", "MM\x00*": "image/tiff", "\x1a\x45\xdf\xa3": "video/webm",
		string(mp4): "video/mp4", string(mov): "video/quicktime", "RIFF\x00\x00\x00\x00AVI LIST": "video/x-msvideo",
		"": "", "hello": "",
	} {
		if got := SniffMIME([]byte(b)); got != want {
			t.Errorf("SniffMIME(%q) = %q, want %q", b, got, want)
		}
	}
}
