package linesig

// VectorsDir is vectorsDir for the external tests (package linesig_test).
var VectorsDir = vectorsDir
