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

package api_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCorpusFilesRefusesAnEmptyFolder: a corpus-driven table must fail, not pass vacuously,
// when its folder is empty or holds no YAML file.
func TestCorpusFilesRefusesAnEmptyFolder(t *testing.T) {
	empty := t.TempDir()
	if _, err := corpusFiles(empty); err == nil {
		t.Errorf("corpusFiles(empty folder) = nil error; want an error")
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "README.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := corpusFiles(other); err == nil {
		t.Errorf("corpusFiles(folder without YAML) = nil error; want an error")
	}
	for _, dir := range []string{invalidDir, validDir} {
		files, err := corpusFiles(dir)
		if err != nil || len(files) == 0 {
			t.Errorf("corpusFiles(%s) = %d files, %v; want files", dir, len(files), err)
		}
	}
}
