package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

func hexSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func fmtSscanf(s string, r, c *int) (int, error) { return fmt.Sscanf(s, "%d, %d)", r, c) }
