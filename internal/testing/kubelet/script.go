/*
Copyright 2026 The Caldera Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package kubelet is the simulated kubelet step of the local control plane: KWOK makes pods
// Running, and this step reads a container's command when it is one of the small shell forms
// test suites use (sleep, exit, true, false, a missing command or script) and ends the
// container as a kubelet would, restarting it under restartPolicy OnFailure or Always. Anything
// it does not understand keeps running until it is deleted.
package kubelet

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Run is what one run of a container's command does: it runs for Duration, then exits with
// ExitCode. Message is what a container runtime would report for a failure, if anything.
type Run struct {
	Duration time.Duration
	ExitCode int32
	Message  string
}

// maxSleep bounds one sleep: longer ones behave as "runs until deleted" anyway, and the bound
// keeps durations far from overflowing.
const maxSleep = 365 * 24 * time.Hour

// Simulate reads a container's command and args. ok is false unless they are one of the forms
// the simulated kubelet understands:
//   - a shell script, `sh -c <script>` or `/bin/sh -c <script>` (also bash), made of the
//     statements `sleep <n>[s|m|h|d]`, `exit [<n>]`, `true`, `false`, `:`, `echo <words>`,
//     `sh <file>` (a script the image does not have: exit 2, as busybox's sh) and a single word
//     naming no command (`xxx`: exit 127), joined by `;`, `&&`, `||` or new lines;
//   - the program itself: `sleep <n>`, `true` or `false`.
//
// echo's arguments may hold quotes, variables and command substitutions of programs that print
// at once ($(date)). Anything else with expansions or quotes, and pipes, redirections or other
// programs, is not understood.
func Simulate(command, args []string) (run Run, ok bool) {
	argv := append(append([]string(nil), command...), args...)
	if len(argv) == 0 {
		return Run{}, false
	}
	if isShell(argv[0]) {
		if len(argv) == 3 && argv[1] == "-c" {
			return script(argv[2])
		}
		if len(argv) == 2 && simpleWord(argv[1]) {
			return missingScript(argv[0], argv[1]), true
		}
		return Run{}, false
	}
	words := make([]word, len(argv))
	for i, a := range argv {
		words[i] = word{text: a, plain: simpleWord(a)}
	}
	st, ok := statement(words)
	if !ok || st.kind == notFound || st.kind == exitShell || st.kind == runScript || st.kind == echo {
		// A program that does not exist fails to start (a runtime error, not an exit code);
		// exit and echo are shell words, not programs in the image.
		return Run{}, false
	}
	return evaluate([]step{{op: ";", st: st}}), true
}

// isShell reports whether a program name is a POSIX shell.
func isShell(program string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(program, "/usr"), "/bin/") {
	case "sh", "bash", "ash", "dash":
		return true
	}
	return false
}

// kind is the kind of one statement.
type kind int

const (
	sleep kind = iota
	exitShell
	succeed
	fail
	echo
	runScript
	notFound
)

// stmt is one parsed statement.
type stmt struct {
	kind  kind
	sleep time.Duration
	code  int32
	// hasCode tells exit with a number from a bare exit.
	hasCode bool
	word    string
}

// step is a statement with the operator before it (";", "&&" or "||").
type step struct {
	op string
	st stmt
}

// script parses and evaluates a shell script.
func script(text string) (Run, bool) {
	parts, ok := lex(text)
	if !ok {
		return Run{}, false
	}
	var steps []step
	op := ";"
	for _, part := range parts {
		if part.op != "" {
			if part.op != ";" && op != ";" {
				// "a && || b" is a syntax error.
				return Run{}, false
			}
			if part.op != ";" && len(steps) == 0 {
				// A script cannot start with && or ||.
				return Run{}, false
			}
			if part.op == ";" && op != ";" {
				// "a && ; b" is a syntax error.
				return Run{}, false
			}
			op = part.op
			continue
		}
		st, ok := statement(part.words)
		if !ok {
			return Run{}, false
		}
		steps = append(steps, step{op: op, st: st})
		op = ";"
	}
	if op != ";" || len(steps) == 0 {
		return Run{}, false
	}
	return evaluate(steps), true
}

// word is one word of a statement. plain words are made of plain characters only; the others
// hold quotes or expansions, which only echo's arguments may have.
type word struct {
	text  string
	plain bool
}

// part is a statement (its words) or an operator between statements (";", "&&" or "||").
type part struct {
	words []word
	op    string
}

// instantPrograms are the programs a command substitution may run in an echo's argument: they
// print a line at once and always succeed, so they change neither the time nor the status.
var instantPrograms = map[string]bool{"date": true, "hostname": true, "whoami": true, "pwd": true, "uname": true, "id": true}

// lex splits a script into statements and operators. It understands single and double quotes,
// variables ($NAME, ${NAME}) and command substitutions of an instant program ($(date)); any
// other shell syntax (pipes, redirections, globs, assignments, comments, backquotes, escapes,
// sub-shells) is not understood.
func lex(text string) ([]part, bool) {
	var (
		parts  []part
		words  []word
		cur    strings.Builder
		plain  = true
		inWord bool
	)
	endWord := func() {
		if inWord {
			words = append(words, word{text: cur.String(), plain: plain})
		}
		cur.Reset()
		plain, inWord = true, false
	}
	endStatement := func(op string) {
		endWord()
		if len(words) > 0 {
			parts = append(parts, part{words: words})
		}
		words = nil
		parts = append(parts, part{op: op})
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == ';' || c == '\n':
			endStatement(";")
		case strings.HasPrefix(text[i:], "&&"), strings.HasPrefix(text[i:], "||"):
			endStatement(text[i : i+2])
			i++
		case c == '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(text[i+1 : i+1+j])
			plain, inWord = false, true
			i += 1 + j
		case c == '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				switch text[j] {
				case '`', '\\':
					return nil, false
				case '$':
					n, ok := expansion(text[j:])
					if !ok {
						return nil, false
					}
					j += n - 1
				}
			}
			if j == len(text) {
				return nil, false
			}
			cur.WriteString(text[i+1 : j])
			plain, inWord = false, true
			i = j
		case c == '$':
			n, ok := expansion(text[i:])
			if !ok {
				return nil, false
			}
			cur.WriteString(text[i : i+n])
			plain, inWord = false, true
			i += n - 1
		case strings.IndexByte(specials, c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	endWord()
	if len(words) > 0 {
		parts = append(parts, part{words: words})
	}
	return parts, true
}

// specials are the characters of shell syntax the simulated kubelet does not understand
// outside quotes.
const specials = "`\\<>(){}*?[]#~=|&"

// expansion reads the expansion at the start of text and returns its length: $NAME, ${NAME} or
// $(program) for an instant program.
func expansion(text string) (int, bool) {
	name := func(s string) int {
		n := 0
		for n < len(s) && (s[n] == '_' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
			n++
		}
		return n
	}
	switch {
	case strings.HasPrefix(text, "${"):
		n := name(text[2:])
		if n == 0 || len(text) <= 2+n || text[2+n] != '}' {
			return 0, false
		}
		return n + 3, true
	case strings.HasPrefix(text, "$("):
		end := strings.IndexByte(text, ')')
		if end < 0 || !instantPrograms[strings.TrimSpace(text[2:end])] {
			return 0, false
		}
		return end + 1, true
	}
	n := name(text[1:])
	return n + 1, n > 0
}

// statement parses one statement's words.
func statement(ws []word) (stmt, bool) {
	if ws[0].text == "echo" && ws[0].plain {
		// echo prints its arguments and succeeds, whatever they hold.
		return stmt{kind: echo}, true
	}
	words := make([]string, len(ws))
	for i, w := range ws {
		if !w.plain || !simpleWord(w.text) {
			return stmt{}, false
		}
		words[i] = w.text
	}
	switch words[0] {
	case "sleep":
		if len(words) != 2 {
			return stmt{}, false
		}
		d, ok := sleepDuration(words[1])
		return stmt{kind: sleep, sleep: d}, ok
	case "exit":
		switch len(words) {
		case 1:
			return stmt{kind: exitShell}, true
		case 2:
			n, err := strconv.Atoi(words[1])
			if err != nil || n < 0 {
				return stmt{}, false
			}
			return stmt{kind: exitShell, code: int32(n % 256), hasCode: true}, true
		}
		return stmt{}, false
	case "true", ":":
		return stmt{kind: succeed}, len(words) == 1
	case "false":
		return stmt{kind: fail}, len(words) == 1
	}
	if isShell(words[0]) {
		if len(words) == 2 && !strings.HasPrefix(words[1], "-") {
			return stmt{kind: runScript, word: words[0] + " " + words[1]}, true
		}
		return stmt{}, false
	}
	if len(words) == 1 && !strings.Contains(words[0], "/") && !strings.HasPrefix(words[0], "-") {
		return stmt{kind: notFound, word: words[0]}, true
	}
	return stmt{}, false
}

// simpleWord reports whether w is a plain word: letters, digits and . _ - / + : , @ %.
func simpleWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("._-/+:,@%", r):
		default:
			return false
		}
	}
	return true
}

// sleepDuration reads sleep's argument: a non-negative number with an optional unit s, m, h or d.
func sleepDuration(arg string) (time.Duration, bool) {
	unit := time.Second
	switch {
	case strings.HasSuffix(arg, "s"):
		arg = strings.TrimSuffix(arg, "s")
	case strings.HasSuffix(arg, "m"):
		arg, unit = strings.TrimSuffix(arg, "m"), time.Minute
	case strings.HasSuffix(arg, "h"):
		arg, unit = strings.TrimSuffix(arg, "h"), time.Hour
	case strings.HasSuffix(arg, "d"):
		arg, unit = strings.TrimSuffix(arg, "d"), 24*time.Hour
	}
	n, err := strconv.ParseFloat(arg, 64)
	if err != nil || n < 0 || strings.ContainsAny(arg, "eEnNiIxX+-") {
		return 0, false
	}
	d := n * float64(unit)
	if d > float64(maxSleep) {
		return maxSleep, true
	}
	return time.Duration(d), true
}

// missingScript is `sh <file>` for a file the image does not have.
func missingScript(shell, file string) Run {
	return Run{ExitCode: 2, Message: fmt.Sprintf("%s: can't open '%s': No such file or directory", shell, file)}
}

// evaluate runs the statements as a shell would: && runs the next one only after a success,
// || only after a failure, and exit ends the script.
func evaluate(steps []step) Run {
	var run Run
	status := int32(0)
	for _, s := range steps {
		if (s.op == "&&" && status != 0) || (s.op == "||" && status == 0) {
			continue
		}
		switch s.st.kind {
		case sleep:
			run.Duration += s.st.sleep
			if run.Duration > maxSleep {
				run.Duration = maxSleep
			}
			status = 0
		case exitShell:
			if s.st.hasCode {
				status = s.st.code
			}
			run.ExitCode = status
			if status == 0 {
				run.Message = ""
			}
			return run
		case succeed, echo:
			status = 0
		case fail:
			status = 1
		case runScript:
			shell, file, _ := strings.Cut(s.st.word, " ")
			m := missingScript(shell, file)
			status, run.Message = m.ExitCode, m.Message
		case notFound:
			status, run.Message = 127, fmt.Sprintf("sh: %s: not found", s.st.word)
		}
	}
	run.ExitCode = status
	if status == 0 {
		run.Message = ""
	}
	return run
}
