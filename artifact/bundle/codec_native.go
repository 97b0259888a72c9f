package bundle

import (
	"unsafe"
)

// On little-endian machines the in-memory bytes of []float64, []int (when
// int has 64 bits) and []int32 are exactly their '<f8', '<i8' and '<i4' .npy
// encodings, so the codec writes and reads such slices without converting
// element by element: encoding streams the slice's own bytes, and decoding
// reads a member straight into the freshly allocated slice. Other machines,
// and members whose width differs from the Go type, take the converting
// path in codec.go.

// nativeLittle reports whether this machine stores numbers little-endian.
var nativeLittle = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// nativeBytes returns the memory of v as bytes if it is laid out exactly as
// little-endian elements of size bytes each; ok is false otherwise.
func nativeBytes[T float64 | int | int32](v []T, size int) (b []byte, ok bool) {
	var zero T
	if !nativeLittle || int(unsafe.Sizeof(zero)) != size {
		return nil, false
	}
	if len(v) == 0 {
		return nil, true
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*size), true
}
