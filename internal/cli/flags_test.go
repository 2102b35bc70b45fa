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

package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagSpecs lists a flag set as "-x/--long=default" in the order of the long names, help left out.
func flagSpecs(fs *pflag.FlagSet) []string {
	var specs []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		spec := "--" + f.Name + "=" + f.DefValue
		if f.Shorthand != "" {
			spec = "-" + f.Shorthand + "/" + spec
		}
		specs = append(specs, spec)
	})
	return specs
}

// TestCommandTree pins the commands and their flags, shorthands and defaults, which follow
// Volcano's vcctl.
func TestCommandTree(t *testing.T) {
	want := map[string][]string{
		"vcctl": {"-k/--kubeconfig=", "-s/--master="},
		"vcctl job run": {"-f/--filename=", "-i/--image=busybox", "-L/--limits=cpu=1000m,memory=100Mi", "-m/--min=1",
			"-N/--name=", "-n/--namespace=default", "-q/--queue=", "-r/--replicas=1", "-R/--requests=cpu=1000m,memory=100Mi",
			"-S/--scheduler=volcano"},
		"vcctl job list":             {"--all-namespaces=false", "-n/--namespace=default", "-q/--queue=", "-S/--scheduler=", "--selector="},
		"vcctl job view":             {"-N/--name=", "-n/--namespace=default"},
		"vcctl job suspend":          {"-N/--name=", "-n/--namespace=default"},
		"vcctl job resume":           {"-N/--name=", "-n/--namespace=default"},
		"vcctl job delete":           {"-N/--name=", "-n/--namespace=default"},
		"vcctl cronjob list":         {"--all-namespaces=false", "-n/--namespace=default"},
		"vcctl cronjob get":          {"-N/--name=", "-n/--namespace=default"},
		"vcctl cronjob suspend":      {"--force=false", "-N/--name=", "-n/--namespace=default"},
		"vcctl cronjob resume":       {"--force=false", "-N/--name=", "-n/--namespace=default"},
		"vcctl queue create":         {"-n/--name=test", "--parent=", "-S/--state=Open", "-w/--weight=1"},
		"vcctl queue delete":         {"-n/--name="},
		"vcctl queue operate":        {"-a/--action=", "--force=false", "-n/--name=", "-w/--weight=0"},
		"vcctl queue list":           {"--tree=false"},
		"vcctl queue get":            {"-n/--name="},
		"vcctl pod list":             {"--all-namespaces=false", "-j/--job=", "-n/--namespace=default", "-q/--queue="},
		"vcctl version":              nil,
		"vcctl jobflow create":       {"-f/--file="},
		"vcctl jobflow delete":       {"-f/--file=", "-N/--name=", "-n/--namespace=default"},
		"vcctl jobflow describe":     {"-o/--format=yaml", "-N/--name=", "-n/--namespace=default"},
		"vcctl jobflow get":          {"-N/--name=", "-n/--namespace=default"},
		"vcctl jobflow list":         {"--all-namespaces=false", "-n/--namespace=default"},
		"vcctl jobtemplate create":   {"-f/--file="},
		"vcctl jobtemplate delete":   {"-f/--file=", "-N/--name=", "-n/--namespace=default"},
		"vcctl jobtemplate describe": {"-o/--format=yaml", "-N/--name=", "-n/--namespace=default"},
		"vcctl jobtemplate get":      {"-N/--name=", "-n/--namespace=default"},
		"vcctl jobtemplate list":     {"-n/--namespace=default"},
		"vcctl job why":              {"-N/--name=", "-n/--namespace=default"},
	}
	got := map[string][]string{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" {
			return
		}
		if c.HasSubCommands() && c.HasParent() {
			if c.RunE != nil || c.Run != nil {
				t.Errorf("%s has subcommands and runs itself", c.CommandPath())
			}
		} else {
			fs := c.LocalNonPersistentFlags()
			if !c.HasParent() {
				fs = c.PersistentFlags()
			}
			got[c.CommandPath()] = flagSpecs(fs)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCommand(Options{}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("command tree (-want +got):\n%s", diff)
	}
}

func TestJobRunFlagParsing(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		want    jobRunFlags
		wantErr string
	}{
		{
			name: "defaults",
			args: nil,
			want: runFlags(nil),
		},
		{
			name: "short flags",
			args: []string{"-N", "demo", "-n", "team-a", "-i", "nginx", "-m", "2", "-r", "3", "-R", "cpu=1", "-L", "cpu=2", "-S", "other", "-q", "gpu"},
			want: runFlags(func(f *jobRunFlags) {
				f.name, f.namespace, f.image, f.minAvailable, f.replicas = "demo", "team-a", "nginx", 2, 3
				f.requests, f.limits, f.scheduler, f.queue = "cpu=1", "cpu=2", "other", "gpu"
				for _, n := range []string{"namespace", "image", "min", "replicas", "requests", "limits", "scheduler", "queue"} {
					f.changed[n] = true
				}
			}),
		},
		{
			name: "long flags",
			args: []string{"--filename=job.yaml", "--name=demo", "--namespace=x"},
			want: runFlags(func(f *jobRunFlags) {
				f.filename, f.name, f.namespace = "job.yaml", "demo", "x"
				f.changed["namespace"] = true
			}),
		},
		{
			name:    "not a number",
			args:    []string{"-m", "two"},
			wantErr: `invalid argument "two" for "-m, --min" flag: strconv.ParseInt: parsing "two": invalid syntax`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd, f := newJobRunCommand(&env{Options: Options{}.withDefaults(), global: &globalFlags{}})
			err := cmd.ParseFlags(tc.args)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			f.changed = changedFlags(cmd, "namespace", "image", "min", "replicas", "requests", "limits", "scheduler", "queue")
			if diff := cmp.Diff(tc.want, *f, cmp.AllowUnexported(jobRunFlags{})); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListFlagParsing(t *testing.T) {
	e := &env{Options: Options{}.withDefaults(), global: &globalFlags{}}

	jobCmd, jobFlags := newJobListCommand(e)
	if err := jobCmd.ParseFlags([]string{"--all-namespaces", "-q", "gpu", "-S", "volcano", "--selector", "train"}); err != nil {
		t.Fatal(err)
	}
	wantJob := jobListFlags{namespace: "default", allNamespaces: true,
		filter: jobListFilter{queue: "gpu", scheduler: "volcano", selector: "train"}}
	if diff := cmp.Diff(wantJob, *jobFlags, cmp.AllowUnexported(jobListFlags{}, jobListFilter{})); diff != "" {
		t.Errorf("job list flags (-want +got):\n%s", diff)
	}

	podCmd, podFlags := newPodListCommand(e)
	if err := podCmd.ParseFlags([]string{"-n", "team-a", "-j", "train", "-q", "gpu"}); err != nil {
		t.Fatal(err)
	}
	wantPod := podListFlags{namespace: "team-a", filter: podListFilter{job: "train", queue: "gpu"}}
	if diff := cmp.Diff(wantPod, *podFlags, cmp.AllowUnexported(podListFlags{}, podListFilter{})); diff != "" {
		t.Errorf("pod list flags (-want +got):\n%s", diff)
	}

	opCmd, opFlags := newQueueOperateCommand(e)
	if err := opCmd.ParseFlags([]string{"-n", "q1", "-a", "update", "-w", "5"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queueOperateFlags{name: "q1", action: "update", weight: 5}, *opFlags,
		cmp.AllowUnexported(queueOperateFlags{})); diff != "" {
		t.Errorf("queue operate flags (-want +got):\n%s", diff)
	}

	createCmd, createFlags := newQueueCreateCommand(e)
	if err := createCmd.ParseFlags([]string{"-n", "q1", "-w", "3", "-S", "Closed", "--parent", "root"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queueCreateFlags{name: "q1", weight: 3, state: "Closed", parent: "root"}, *createFlags,
		cmp.AllowUnexported(queueCreateFlags{})); diff != "" {
		t.Errorf("queue create flags (-want +got):\n%s", diff)
	}
}

// TestArgumentAndFlagErrors runs the command tree on bad command lines that fail before any
// cluster is contacted.
func TestArgumentAndFlagErrors(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"positional argument", []string{"job", "view", "demo"},
			`vcctl job view takes no arguments, got "demo": name the job with -N/--name`},
		{"unknown flag", []string{"job", "list", "-x"},
			"unknown shorthand flag: 'x' in -x: see `vcctl job list --help` for the flags"},
		{"view without name", []string{"job", "view"}, "job name is required to view a job: pass -N/--name"},
		{"why without name", []string{"job", "why"}, "job name is required to explain a job: pass it as the argument or with -N/--name"},
		{"why with two names", []string{"job", "why", "a", "b"}, "vcctl job why takes one job name, got 2: a b"},
		{"why named twice", []string{"job", "why", "a", "-N", "b"}, "the job is named twice (-N b and a): name it once"},
		{"suspend without name", []string{"job", "suspend"}, "job name is required to suspend a job: pass -N/--name"},
		{"resume without name", []string{"job", "resume"}, "job name is required to resume a job: pass -N/--name"},
		{"delete without name", []string{"job", "delete", "-n", ""},
			"job name is required to delete a job: pass -N/--name"},
		{"run without name", []string{"job", "run"}, "job name is required: pass -N/--name, or -f/--filename with a job manifest"},
		{"run with a missing file", []string{"job", "run", "-f", "/no/such/job.yaml"},
			"-f/--filename /no/such/job.yaml: no such file: check the path"},
		{"queue delete without name", []string{"queue", "delete"}, "queue name is required: pass -n/--name"},
		{"queue get without name", []string{"queue", "get"}, "queue name is required: pass -n/--name"},
		{"queue operate without action", []string{"queue", "operate", "-n", "q"},
			"action is required: pass -a/--action open, close or update"},
		{"queue create with a bad weight", []string{"queue", "create", "-w", "0"},
			"-w/--weight 0 is out of range: a queue's weight is 1 to 65535"},
		{"missing kubeconfig", []string{"job", "list", "-k", "/no/such/kubeconfig"},
			"reading the kubeconfig given by -k/--kubeconfig: stat /no/such/kubeconfig: no such file or directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			root := NewRootCommand(Options{Out: &out, ErrOut: &out})
			root.SetArgs(tc.args)
			err := root.Execute()
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobRunFromStandardInput(t *testing.T) {
	var out bytes.Buffer
	root := NewRootCommand(Options{In: strings.NewReader("kind: Job\nmetadata:\n  name: x\n---\nkind: Job\n"), Out: &out, ErrOut: &out})
	root.SetArgs([]string{"job", "run", "-f", "-"})
	err := root.Execute()
	want := "standard input holds 2 documents: vcctl job run creates one job, so keep one Job in the file"
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}
