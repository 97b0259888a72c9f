package pyobj

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// argument layouts of the pickle opcodes (as in Python's pickletools).
const (
	argNone    = iota
	argFixed   // fixed number of bytes (size)
	argLen1    // 1-byte length, then that many bytes
	argLen4    // 4-byte little-endian length, then that many bytes
	argLen8    // 8-byte little-endian length, then that many bytes
	argLine    // one newline-terminated line
	argLines2  // two newline-terminated lines
	argFrame   // 8-byte frame length (the frame's opcodes follow inline)
	argInvalid // not an opcode
)

type opInfo struct {
	name string
	arg  int
	size int
}

var opTable [256]opInfo

func init() {
	set := func(code byte, name string, arg, size int) { opTable[code] = opInfo{name, arg, size} }
	for _, c := range []struct {
		code byte
		name string
	}{
		{'N', "NONE"}, {0x88, "NEWTRUE"}, {0x89, "NEWFALSE"}, {']', "EMPTY_LIST"}, {'a', "APPEND"},
		{'e', "APPENDS"}, {'l', "LIST"}, {')', "EMPTY_TUPLE"}, {'t', "TUPLE"}, {0x85, "TUPLE1"},
		{0x86, "TUPLE2"}, {0x87, "TUPLE3"}, {'}', "EMPTY_DICT"}, {'d', "DICT"}, {'s', "SETITEM"},
		{'u', "SETITEMS"}, {0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"}, {0x91, "FROZENSET"}, {'0', "POP"},
		{'2', "DUP"}, {'(', "MARK"}, {'1', "POP_MARK"}, {0x94, "MEMOIZE"}, {0x93, "STACK_GLOBAL"},
		{'R', "REDUCE"}, {'b', "BUILD"}, {'o', "OBJ"}, {0x81, "NEWOBJ"}, {0x92, "NEWOBJ_EX"},
		{'.', "STOP"}, {'Q', "BINPERSID"}, {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"},
	} {
		set(c.code, c.name, argNone, 0)
	}
	set('J', "BININT", argFixed, 4)
	set('K', "BININT1", argFixed, 1)
	set('M', "BININT2", argFixed, 2)
	set('G', "BINFLOAT", argFixed, 8)
	set('h', "BINGET", argFixed, 1)
	set('j', "LONG_BINGET", argFixed, 4)
	set('q', "BINPUT", argFixed, 1)
	set('r', "LONG_BINPUT", argFixed, 4)
	set(0x82, "EXT1", argFixed, 1)
	set(0x83, "EXT2", argFixed, 2)
	set(0x84, "EXT4", argFixed, 4)
	set(0x80, "PROTO", argFixed, 1)
	set(0x8a, "LONG1", argLen1, 0)
	set('U', "SHORT_BINSTRING", argLen1, 0)
	set('C', "SHORT_BINBYTES", argLen1, 0)
	set(0x8c, "SHORT_BINUNICODE", argLen1, 0)
	set(0x8b, "LONG4", argLen4, 0)
	set('T', "BINSTRING", argLen4, 0)
	set('B', "BINBYTES", argLen4, 0)
	set('X', "BINUNICODE", argLen4, 0)
	set(0x8e, "BINBYTES8", argLen8, 0)
	set(0x96, "BYTEARRAY8", argLen8, 0)
	set(0x8d, "BINUNICODE8", argLen8, 0)
	for _, c := range []struct {
		code byte
		name string
	}{{'I', "INT"}, {'L', "LONG"}, {'S', "STRING"}, {'V', "UNICODE"}, {'F', "FLOAT"},
		{'g', "GET"}, {'p', "PUT"}, {'P', "PERSID"}} {
		set(c.code, c.name, argLine, 0)
	}
	set('c', "GLOBAL", argLines2, 0)
	set('i', "INST", argLines2, 0)
	set(0x95, "FRAME", argFrame, 8)
	for i := range opTable {
		if opTable[i].name == "" {
			opTable[i].arg = argInvalid
		}
	}
}

// Check walks the opcode stream of a pickle up to its STOP opcode and reports
// the first unknown opcode or argument that runs past the end of data, with
// its byte offset. It does not interpret the pickle.
func Check(data []byte) error {
	pos := 0
	n := len(data)
	for {
		if pos >= n {
			return &Error{Offset: int64(pos), Msg: "pickle ends without a STOP opcode"}
		}
		code := data[pos]
		op := opTable[code]
		start := pos
		pos++
		need := func(k uint64) error {
			if k > uint64(n-pos) {
				return &Error{Offset: int64(start), Msg: fmt.Sprintf("%s needs %d more bytes, only %d remain", op.name, k, n-pos)}
			}
			pos += int(k)
			return nil
		}
		var err error
		switch op.arg {
		case argInvalid:
			return &Error{Offset: int64(start), Msg: fmt.Sprintf("unknown pickle opcode 0x%02x", code)}
		case argNone:
			if code == '.' {
				return nil
			}
		case argFixed, argFrame:
			err = need(uint64(op.size))
			if err == nil && code == 0x95 {
				if fl := binary.LittleEndian.Uint64(data[pos-8 : pos]); fl > uint64(n-pos) {
					err = &Error{Offset: int64(start), Msg: fmt.Sprintf("FRAME of %d bytes, only %d remain", fl, n-pos)}
				}
			}
		case argLen1:
			if err = need(1); err == nil {
				err = need(uint64(data[pos-1]))
			}
		case argLen4:
			if err = need(4); err == nil {
				l := binary.LittleEndian.Uint32(data[pos-4 : pos])
				if code == 'T' && int32(l) < 0 {
					return &Error{Offset: int64(start), Msg: "BINSTRING with a negative length"}
				}
				err = need(uint64(l))
			}
		case argLen8:
			if err = need(8); err == nil {
				err = need(binary.LittleEndian.Uint64(data[pos-8 : pos]))
			}
		case argLine, argLines2:
			lines := 1
			if op.arg == argLines2 {
				lines = 2
			}
			for l := 0; l < lines; l++ {
				k := bytes.IndexByte(data[pos:], '\n')
				if k < 0 {
					return &Error{Offset: int64(start), Msg: fmt.Sprintf("%s argument is not terminated by a newline", op.name)}
				}
				pos += k + 1
			}
		}
		if err != nil {
			return err
		}
	}
}
