// Package command is what the commands validate, view, export and run do
// once their flags are parsed: package main keeps their cobra definitions
// and flags, and passes in, as function values or small interfaces
// declared here, what input discovery and the conversion job give them.
package command
