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

package kubelet

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSimulate(t *testing.T) {
	sh := func(script string) []string { return []string{"/bin/sh", "-c", script} }
	cases := map[string]struct {
		command, args []string
		want          Run
		ok            bool
	}{
		"sleep seconds":                   {command: sh("sleep 5"), want: Run{Duration: 5 * time.Second}, ok: true},
		"sleep with a unit":               {command: sh("sleep 10s"), want: Run{Duration: 10 * time.Second}, ok: true},
		"sleep minutes":                   {command: sh("sleep 1.5m"), want: Run{Duration: 90 * time.Second}, ok: true},
		"sleep then exit":                 {command: sh("sleep 10s && exit 3"), want: Run{Duration: 10 * time.Second, ExitCode: 3}, ok: true},
		"sleep; exit":                     {command: sh("sleep 1; exit 1"), want: Run{Duration: time.Second, ExitCode: 1}, ok: true},
		"exit alone":                      {command: sh("exit 7"), want: Run{ExitCode: 7}, ok: true},
		"exit wraps at 256":               {command: sh("exit 257"), want: Run{ExitCode: 1}, ok: true},
		"bare exit keeps status":          {command: sh("false; exit"), want: Run{ExitCode: 1}, ok: true},
		"true":                            {command: sh("true"), want: Run{}, ok: true},
		"false":                           {command: sh("false"), want: Run{ExitCode: 1}, ok: true},
		"unknown command":                 {command: sh("sleep 10s && xxx"), want: Run{Duration: 10 * time.Second, ExitCode: 127, Message: "sh: xxx: not found"}, ok: true},
		"missing script":                  {command: sh("sh fake.sh"), want: Run{ExitCode: 2, Message: "sh: can't open 'fake.sh': No such file or directory"}, ok: true},
		"sh with a script file":           {command: []string{"sh", "fake.sh"}, want: Run{ExitCode: 2, Message: "sh: can't open 'fake.sh': No such file or directory"}, ok: true},
		"command and args split":          {command: []string{"/bin/sh"}, args: []string{"-c", "sleep 3"}, want: Run{Duration: 3 * time.Second}, ok: true},
		"bash":                            {command: []string{"bash", "-c", "exit 4"}, want: Run{ExitCode: 4}, ok: true},
		"&& skipped after failure":        {command: sh("false && sleep 100"), want: Run{ExitCode: 1}, ok: true},
		"|| runs after failure":           {command: sh("false || sleep 2"), want: Run{Duration: 2 * time.Second}, ok: true},
		"|| skipped after success":        {command: sh("true || exit 3"), want: Run{}, ok: true},
		"new lines":                       {command: sh("sleep 1\nexit 2\n"), want: Run{Duration: time.Second, ExitCode: 2}, ok: true},
		"echo":                            {command: sh("echo done; sleep 1"), want: Run{Duration: time.Second}, ok: true},
		"echo with quotes and expansions": {command: sh(`echo 'CronJob executed at' $(date) "on $HOSTNAME, ${USER}"; sleep 180`), want: Run{Duration: 180 * time.Second}, ok: true},
		"operators in quotes are words":   {command: sh("echo 'a; exit 3' \"&& false\""), want: Run{}, ok: true},
		"echo then exit":                  {command: sh("echo 'failing at' $(date); exit 1"), want: Run{ExitCode: 1}, ok: true},
		"exit ends the script":            {command: sh("exit 0; sleep 100"), want: Run{}, ok: true},
		"sleep program":                   {command: []string{"sleep", "30"}, want: Run{Duration: 30 * time.Second}, ok: true},
		"false program":                   {command: []string{"false"}, want: Run{ExitCode: 1}, ok: true},
		"a huge sleep is bounded":         {command: sh("sleep 100000000d"), want: Run{Duration: maxSleep}, ok: true},

		"no command: the image's entrypoint": {},
		"a program with arguments":           {command: sh("python3 /opt/train.py --epochs=1")},
		"a pipe":                             {command: sh("sleep 1 | cat")},
		"a redirection":                      {command: sh("echo x > /tmp/x")},
		"a quoted sleep":                     {command: sh("sleep '5'")},
		"an unknown substitution":            {command: sh("echo $(sleep 100)")},
		"a nested substitution":              {command: sh("echo $(echo $(date))")},
		"backquotes":                         {command: sh("echo `date`")},
		"a parameter default":                {command: sh("echo ${A:-b}")},
		"an unterminated quote":              {command: sh("echo 'a; sleep 1")},
		"an escape in double quotes":         {command: sh(`echo "a\"b"`)},
		"an expansion as the command":        {command: sh("$CMD 1")},
		"a quoted command":                   {command: sh("'sleep' 1")},
		"two operators":                      {command: sh("true && || false")},
		"a sleep with no number":             {command: sh("sleep forever")},
		"a negative exit":                    {command: sh("exit -1")},
		"a dangling &&":                      {command: sh("sleep 1 &&")},
		"a leading ||":                       {command: sh("|| true")},
		"an empty script":                    {command: sh("  ")},
		"a program that is not there":        {command: []string{"xxx"}},
		"sh with options":                    {command: []string{"sh", "-x", "-c", "true"}},
		"nginx":                              {command: []string{"nginx", "-g", "daemon off;"}},
		"a path as a command":                {command: sh("/usr/sbin/sshd")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := Simulate(tc.command, tc.args)
			if ok != tc.ok {
				t.Fatalf("Simulate(%q, %q) ok = %v, want %v", tc.command, tc.args, ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Simulate(%q, %q) (-want +got):\n%s", tc.command, tc.args, diff)
			}
		})
	}
}
