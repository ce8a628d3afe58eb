package limits

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// At the bound, a new connection waits (in the backlog) until one closes;
// Close ends a waiting Accept.
func TestListener(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(raw, ListenerOptions{MaxOpen: 2, SendBuffer: 64 << 10})
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	var clients []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	s1, s2 := <-accepted, <-accepted
	// The send buffer is set (Linux reports twice the value set).
	raw1, _ := s1.(*limitedConn).Conn.(*net.TCPConn).SyscallConn()
	var sndbuf int
	raw1.Control(func(fd uintptr) { sndbuf, _ = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF) })
	if sndbuf != 128<<10 {
		t.Errorf("send buffer %d, want 128 KiB", sndbuf)
	}
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted over the bound of 2")
	case <-time.After(200 * time.Millisecond):
	}
	if l.Open() != 2 || l.Waits() != 1 || l.Max() != 2 {
		t.Fatalf("open %d waits %d", l.Open(), l.Waits())
	}
	s1.Close()
	s1.Close() // a second Close frees nothing more
	s3 := <-accepted
	if l.Open() != 2 {
		t.Fatalf("open %d", l.Open())
	}
	s2.Close()
	s3.Close()
	if l.Open() != 0 {
		t.Fatalf("open %d after closing all", l.Open())
	}
	l.Close()
	if _, ok := <-accepted; ok {
		t.Fatal("Accept went on after Close")
	}
	_ = clients
}

// Close ends an Accept that waits for room.
func TestListenerCloseWhileFull(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(raw, ListenerOptions{MaxOpen: 1})
	c, _ := net.Dial("tcp", raw.Addr().String())
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error)
	go func() { _, err := l.Accept(); done <- err }()
	time.Sleep(50 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Accept succeeded after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waiting after Close")
	}
}
