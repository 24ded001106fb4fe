package ops

import "testing"

func TestSureEdit(t *testing.T) {
	tests := []struct {
		o, n  string
		prose bool
		want  bool
	}{
		{"const res = await fetch(`/api/users/${id}`);", "const res = await fetch(`/api/users/${id}`, { signal });", false, true},
		{"def f(self):", "def f(self, z):", false, true},
		{"var o replay.RevertOptions", "o := byPerson()", false, true},
		{"return ok && start == p.Start", "return start != p.Start", false, true},
		{`"port": 8080,`, `"port": 9090,`, false, true},
		{"NoMCP   bool", "NoMCP        bool", false, true},
		{"| a | 1 |", "| a | 10 |", true, true},
		{"s.wrote(c.session, rp.Key, id)", "s.wrote(c.session, rp.Key, id, true)", false, true},
		{"// status says where they are; undo and redo put back the exact bytes.", "// status says where they are; undo and redo put back the exact bytes;", false, true},
		// lines people add beside their like
		{"case errors.As(err, &ke):", "case errors.As(err, &ce):", false, false},
		{`"github.com/journalfs/journal/snapshot"`, `"github.com/journalfs/journal/journal/audit"`, false, false},
		{"out = append(out, a)", "out = append(out, b)", false, false},
		{"total += n", "total += m", false, false},
		{"cf, err := r.cat()", "out, err := r.git(ctx)", false, false},
		{"email string", "name string", false, false},
		{"<p>x</p>", "<p>y</p>", true, false},
		{"newRemoteCmd(a), newPushCmd(a), newCloneCmd(a), newKeyCmd(a),", "newRemoteCmd(a), newPushCmd(a), newCloneCmd(a), newKeyCmd(a), newX(a),", false, false},
		{"- Added support for tabs in the reader", "- Added support for CRLF in the reader", true, false},
	}
	for _, tt := range tests {
		if got := sureEdit(tt.o, tt.n, tt.prose); got != tt.want {
			t.Errorf("sureEdit(%q, %q) = %v, want %v", tt.o, tt.n, got, tt.want)
		}
	}
}
