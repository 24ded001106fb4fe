package replay

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/journalfs/journal/snapshot"
)

// TestAsyncPipe_Bytes: whatever the sizes of the writes, the reader, onBlock
// and the side goroutine each see every byte once, in order, and the side
// goroutine has finished when the reader sees the end.
func TestAsyncPipe_Bytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 5*pipeBlock+12345)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for _, how := range []string{"writes", "readfrom", "onebyte"} {
		var onBlock, side bytes.Buffer
		h := snapshot.NewHasher()
		p := newAsyncPipe(2, func(b []byte) error { onBlock.Write(b); return nil }, func(b []byte) { side.Write(b); h.Write(b) })
		go func() {
			var err error
			switch how {
			case "writes":
				for rest := data; len(rest) > 0 && err == nil; {
					k := min(len(rest), r.IntN(3*pipeBlock/2)+1)
					_, err = p.Write(rest[:k])
					rest = rest[k:]
				}
			case "readfrom":
				_, err = p.ReadFrom(bytes.NewReader(data))
			case "onebyte":
				_, err = p.ReadFrom(iotest.OneByteReader(bytes.NewReader(data[:3*pipeBlock+7])))
			}
			if err == nil {
				err = p.Flush()
			}
			p.CloseWrite(err)
		}()
		got, err := io.ReadAll(p)
		want := data
		if how == "onebyte" {
			want = data[:3*pipeBlock+7]
		}
		if err != nil || !bytes.Equal(got, want) || !bytes.Equal(onBlock.Bytes(), want) || !bytes.Equal(side.Bytes(), want) {
			t.Fatalf("%s: %v; read %d, onBlock %d, side %d of %d bytes", how, err, len(got), onBlock.Len(), side.Len(), len(want))
		}
		if h.ID() != snapshot.Sum(want) {
			t.Fatalf("%s: the side goroutine's hash is not the content's", how)
		}
	}
}

// TestAsyncPipe_Errors: the writer's error reaches the reader after the data;
// a reader that gives up releases a writer blocked on a full pipe; onBlock's
// error fails the write.
func TestAsyncPipe_Errors(t *testing.T) {
	boom := errors.New("boom")
	p := newAsyncPipe(2, nil, func([]byte) {})
	go func() {
		p.Write(make([]byte, pipeBlock))
		p.CloseWrite(boom)
	}()
	if n, err := io.Copy(io.Discard, p); n != pipeBlock || !errors.Is(err, boom) {
		t.Fatalf("read %d, %v", n, err)
	}

	p = newAsyncPipe(1, nil, nil)
	done := make(chan error)
	go func() {
		_, err := p.Write(make([]byte, 10*pipeBlock)) // more than the pipe holds
		done <- err
	}()
	p.CloseRead(boom)
	if err := <-done; !errors.Is(err, boom) {
		t.Fatalf("blocked writer: %v", err)
	}

	p = newAsyncPipe(1, func([]byte) error { return boom }, nil)
	if _, err := p.Write(make([]byte, pipeBlock)); !errors.Is(err, boom) {
		t.Fatalf("onBlock error: %v", err)
	}
}
