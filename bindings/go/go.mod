module github.com/linesig/linesig/bindings/go

go 1.22
