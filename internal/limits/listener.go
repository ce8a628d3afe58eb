package limits

import (
	"net"
	"sync"
	"sync/atomic"
)

// ListenerOptions configure a Listener. The zero value bounds nothing.
type ListenerOptions struct {
	// MaxOpen bounds the connections open at once (≤ 0: no bound).
	MaxOpen int
	// SendBuffer, when positive, is the socket send buffer of each TCP
	// connection (SO_SNDBUF; Linux doubles it for its bookkeeping), which
	// otherwise grows to megabytes. What the kernel holds for a client
	// that stops reading is bounded by it, and so is how much of a
	// response such a client can swallow before its writes block and the
	// client stall timeout starts to count.
	SendBuffer int
}

// Listener bounds the connections open at once: at the bound, Accept waits
// for one to close, and new connections wait in the kernel's backlog
// rather than being refused (a burst is absorbed; the header timeout and
// the idle timeout free the connections of clients that send nothing). It
// is safe for concurrent use.
type Listener struct {
	net.Listener
	o      ListenerOptions
	slots  chan struct{}
	done   chan struct{}
	once   sync.Once
	open   atomic.Int64
	waited atomic.Int64
}

// NewListener wraps l.
func NewListener(l net.Listener, o ListenerOptions) *Listener {
	ll := &Listener{Listener: l, o: o, done: make(chan struct{})}
	if o.MaxOpen > 0 {
		ll.slots = make(chan struct{}, o.MaxOpen)
	}
	return ll
}

// Accept waits for room, then for a connection.
func (l *Listener) Accept() (net.Conn, error) {
	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		default:
			l.waited.Add(1)
			select {
			case l.slots <- struct{}{}:
			case <-l.done:
				return nil, net.ErrClosed
			}
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		l.free()
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok && l.o.SendBuffer > 0 {
		tc.SetWriteBuffer(l.o.SendBuffer)
	}
	l.open.Add(1)
	return &limitedConn{Conn: c, l: l}, nil
}

// Close closes the listener and ends a wait in Accept.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// Open is the number of connections open.
func (l *Listener) Open() int64 { return l.open.Load() }

// Waits counts the times Accept waited because the bound was reached.
func (l *Listener) Waits() int64 { return l.waited.Load() }

// Max is the bound (≤ 0: none).
func (l *Listener) Max() int { return l.o.MaxOpen }

func (l *Listener) free() {
	if l.slots != nil {
		<-l.slots
	}
}

// limitedConn gives its slot back on its first Close.
type limitedConn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

// CloseWrite half-closes a TCP connection, as net/http does before closing
// one whose request it did not read to the end.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.open.Add(-1)
		c.l.free()
	})
	return err
}
