package cpupool

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Options configure a Pool.
type Options struct {
	// Slots is the number of heavy tasks run at once (default
	// GOMAXPROCS).
	Slots int
	// Nice is the priority the slot threads run at (Linux nice, 0–19;
	// default 10). A negative value leaves the priority unchanged.
	Nice int
	// Idle runs the slot threads under the Linux SCHED_IDLE policy instead
	// of a nice value: the kernel gives them the CPU only when no ordinary
	// thread wants it, and an ordinary thread that wakes up preempts them at
	// once (a nice value only weighs their share, and a waking thread may
	// wait out part of their time slice). Their work then advances only on
	// CPU time nothing else on the machine claims.
	Idle bool
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("cpupool: closed")

type task struct {
	f    func()
	done chan any // receives the task's panic value, or nil
}

// Pool is a set of low-priority threads running submitted functions.
type Pool struct {
	tasks   chan task
	slots   int
	niceErr error

	closeOnce sync.Once
	stop      chan struct{}
	wg        sync.WaitGroup
}

// New starts the slot threads.
func New(o Options) (*Pool, error) {
	if o.Slots <= 0 {
		o.Slots = runtime.GOMAXPROCS(0)
	}
	if o.Nice == 0 {
		o.Nice = 10
	}
	if o.Nice > 19 {
		return nil, fmt.Errorf("cpupool: nice %d is over 19", o.Nice)
	}
	p := &Pool{tasks: make(chan task), slots: o.Slots, stop: make(chan struct{})}
	var once sync.Once
	ready := make(chan struct{}, o.Slots)
	for i := 0; i < o.Slots; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			runtime.LockOSThread() // the thread dies with the goroutine
			if o.Nice >= 0 || o.Idle {
				if err := lowerPriority(o.Nice, o.Idle); err != nil {
					once.Do(func() { p.niceErr = err })
				}
			}
			ready <- struct{}{}
			for {
				select {
				case t := <-p.tasks:
					t.done <- run(t.f)
				case <-p.stop:
					return
				}
			}
		}()
	}
	for i := 0; i < o.Slots; i++ {
		<-ready
	}
	return p, nil
}

func run(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// Slots is the number of slot threads.
func (p *Pool) Slots() int { return p.slots }

// PriorityError says why the threads could not be given a lower priority
// (nil when they were); the pool works either way.
func (p *Pool) PriorityError() error { return p.niceErr }

// Run runs f on a slot thread and waits for it. If ctx ends before a slot
// is free, f is not run and ctx's error is returned. A panic in f is raised
// again in the caller.
func (p *Pool) Run(ctx context.Context, f func()) error {
	t := task{f: f, done: make(chan any, 1)}
	select {
	case p.tasks <- t:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.stop:
		return ErrClosed
	}
	if v := <-t.done; v != nil {
		panic(v)
	}
	return nil
}

// Close stops the threads once their current tasks end.
func (p *Pool) Close() {
	p.closeOnce.Do(func() { close(p.stop) })
	p.wg.Wait()
}
