// Never finishes while flag[0] is 0: the platform must stop it with a timeout, not hang.
extern "C" __global__ void spin(volatile int* flag) { while (flag[0] == 0) { } }
