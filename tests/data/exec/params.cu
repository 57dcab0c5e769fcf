// Stores its scalar parameters (widened to 64 bits, signed ones sign-extended) so a test can check
// that `gpuvp exec` passes every integer exactly.
extern "C" __global__ void params(unsigned long long a, long long b, unsigned char c, signed char d, unsigned e, int f,
                                  unsigned long long* o) {
  o[0] = a;
  o[1] = (unsigned long long)b;
  o[2] = c;
  o[3] = (unsigned long long)(long long)d;
  o[4] = e;
  o[5] = (unsigned long long)(long long)f;
}
