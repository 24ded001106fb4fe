package agents

// Closes says whether h, an Other hook, tells that the calls of its
// session still open will get no after-hook: a new prompt came
// ("prompt"), the agent's turn ended ("stop"), or the session did
// ("session-end"). "" for every other hook. A subagent's stop closes
// nothing (its parent's calls go on).
func Closes(h Hook) string {
	if h.Op != Other || h.Call.Session == "" {
		return ""
	}
	switch norm(h.Event) {
	case "userpromptsubmit", "beforesubmitprompt", "beforeagent", "userpromptsubmitted", "preuserprompt", "promptsubmit":
		return "prompt"
	case "stop", "agentstop", "afteragent", "postcascaderesponse", "taskcomplete", "taskcancel", "agentend", "agentabort", "agenterror":
		return "stop"
	case "sessionend", "sessionshutdown":
		return "session-end"
	}
	return ""
}
