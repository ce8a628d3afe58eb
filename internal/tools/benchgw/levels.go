package benchgw

// LevelImages is the image list of the i-th level of a concurrency sweep
// that sends requests image requests per level: it starts where the
// previous levels' requests stopped, so that with enough files no level
// sends a picture an earlier level sent (which the gateway's tensor cache
// would answer without preprocessing). imgs is not changed.
func LevelImages(imgs []Image, i, requests int) []Image {
	k := (i * requests) % len(imgs)
	if k == 0 {
		return imgs
	}
	return append(append(make([]Image, 0, len(imgs)), imgs[k:]...), imgs[:k]...)
}
