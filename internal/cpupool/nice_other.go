//go:build !linux

package cpupool

import "errors"

func lowerPriority(int, bool) error {
	return errors.New("cpupool: thread priorities are only set on Linux")
}

func threadNice() (int, error) {
	return 0, errors.New("cpupool: thread priorities are only read on Linux")
}

func threadIdle() (bool, error) {
	return false, errors.New("cpupool: scheduling policies are only read on Linux")
}
