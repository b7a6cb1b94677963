// Fixture version: not a real CUTLASS release.
#pragma once

#define CUTLASS_MAJOR 9
#define CUTLASS_MINOR 8
#define CUTLASS_PATCH 7
