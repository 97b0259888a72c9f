package vec

import "math"

// The constants of the kernels, as bit patterns (the assembly's DATA holds
// the same bits).
var (
	logLo = math.Float64frombits(0x0170000000000000) // 2^−1000
	logHi = math.Float64frombits(0x7e70000000000000) // 2^1000
	sqrt2 = math.Float64frombits(0x3ff6a09e667f3bcd)
	ln2Hi = math.Float64frombits(0x3fe62e42fee00000)
	ln2Lo = math.Float64frombits(0x3dea39ef35793c76)
	lg1   = math.Float64frombits(0x3fe5555555555593)
	lg2   = math.Float64frombits(0x3fd999999997fa04)
	lg3   = math.Float64frombits(0x3fd2492494229359)
	lg4   = math.Float64frombits(0x3fcc71c51d8e78af)
	lg5   = math.Float64frombits(0x3fc7466496cb03de)
	lg6   = math.Float64frombits(0x3fc39a09d078c69f)
	lg7   = math.Float64frombits(0x3fc2f112df3e5244)

	// sinC: −1/15!, 1/13!, …, −1/3! (Horner in δ², highest first).
	sinC = [7]float64{
		math.Float64frombits(0xbd6ae7f3e733b81f),
		math.Float64frombits(0x3de6124613a86d09),
		math.Float64frombits(0xbe5ae64567f544e4),
		math.Float64frombits(0x3ec71de3a556c734),
		math.Float64frombits(0xbf2a01a01a01a01a),
		math.Float64frombits(0x3f81111111111111),
		math.Float64frombits(0xbfc5555555555555),
	}
	// cosC: 1/16!, −1/14!, …, −1/2, 1.
	cosC = [9]float64{
		math.Float64frombits(0x3d2ae7f3e733b81f),
		math.Float64frombits(0xbda93974a8c07c9d),
		math.Float64frombits(0x3e21eed8eff8d898),
		math.Float64frombits(0xbe927e4fb7789f5c),
		math.Float64frombits(0x3efa01a01a01a01a),
		math.Float64frombits(0xbf56c16c16c16c17),
		math.Float64frombits(0x3fa5555555555555),
		math.Float64frombits(0xbfe0000000000000),
		math.Float64frombits(0x3ff0000000000000),
	}
)

// The math package's sin/cos (Cephes' sin.c) coefficients and π/4 in three
// parts; sincosMax is where math.Sincos switches to Payne–Hanek reduction.
var (
	sincosS = [6]float64{
		math.Float64frombits(0x3de5d8fd1fd19ccd),
		math.Float64frombits(0xbe5ae5e5a9291f5d),
		math.Float64frombits(0x3ec71de3567d48a1),
		math.Float64frombits(0xbf2a01a019bfdf03),
		math.Float64frombits(0x3f8111111110f7d0),
		math.Float64frombits(0xbfc5555555555548),
	}
	sincosC = [6]float64{
		math.Float64frombits(0xbda8fa49a0861a9b),
		math.Float64frombits(0x3e21ee9d7b4e3f05),
		math.Float64frombits(0xbe927e4f7eac4bc6),
		math.Float64frombits(0x3efa01a019c844f5),
		math.Float64frombits(0xbf56c16c16c14f91),
		math.Float64frombits(0x3fa555555555554b),
	}
	sincosPi4A = math.Float64frombits(0x3fe921fb40000000)
	sincosPi4B = math.Float64frombits(0x3e64442d00000000)
	sincosPi4C = math.Float64frombits(0x3ce8469898cc5170)
)

const sincosMax = 1 << 29
