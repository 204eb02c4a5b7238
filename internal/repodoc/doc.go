// Package repodoc holds no code: its test keeps the repository's map in
// step with the tree. Every package has a row in docs/design.md's table
// "One job per package" and a line in the README's layout, and no package
// imports a package of the module that its row does not allow.
package repodoc
