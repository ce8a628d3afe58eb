//go:build !unix

package fetch

const openFlags = 0
