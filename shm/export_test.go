package shm

// SetTestName forces the names of the segments p creates (attack tests).
func SetTestName(p *Pool, f func() string) { p.testName = f }
