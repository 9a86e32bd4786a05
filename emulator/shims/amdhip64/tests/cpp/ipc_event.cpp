// Kernel-free HIP IPC event test: the parent writes
// a device buffer with hipMemcpyAsync on a stream (from pinned memory, so the
// copy is asynchronous) and records an interprocess event after it, without
// synchronizing; it sends the memory and event handles to a re-executed
// child, which opens both, makes its stream wait on the event
// (hipStreamWaitEvent), reads the buffer on that stream and checks it, then
// checks hipEventSynchronize and hipEventQuery on the opened event.
//
// With IPC_EVENT_NO_WAIT=1 the child reads at once, without any wait: under
// VMMKIT_STREAMS=adversarial the parent's copy is held until someone waits
// for it, so the child sees stale data (it prints "child: stale data" and
// fails), every time.
#include "common.hpp"

#include <cstdlib>
#include <vector>

static const size_t kSize = (1u << 20) + 64;
static const unsigned kSeed = 11;

static int child(int sock) {
    hipIpcMemHandle_t mh;
    hipIpcEventHandle_t eh;
    recv_all(sock, &mh, sizeof mh);
    recv_all(sock, &eh, sizeof eh);
    const bool wait = std::getenv("IPC_EVENT_NO_WAIT") == nullptr;
    CHECK(hipSetDevice(0));
    void* p = nullptr;
    CHECK(hipIpcOpenMemHandle(&p, mh, hipIpcMemLazyEnablePeerAccess));
    hipEvent_t ev = nullptr;
    CHECK(hipIpcOpenEventHandle(&ev, eh));
    expect_byte(sock, 'G');  // the parent has enqueued its copy and its record
    std::vector<unsigned char> buf(kSize, 0xee);
    if (wait) {
        hipStream_t s = nullptr;
        CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
        CHECK(hipStreamWaitEvent(s, ev, 0));
        CHECK(hipMemcpyAsync(buf.data(), p, kSize, hipMemcpyDeviceToHost, s));
        CHECK(hipStreamSynchronize(s));
        CHECK(hipEventSynchronize(ev));
        CHECK(hipEventQuery(ev));
        CHECK(hipStreamDestroy(s));
    } else {
        CHECK(hipMemcpy(buf.data(), p, kSize, hipMemcpyDeviceToHost));
    }
    for (size_t i = 0; i < kSize; i++) {
        if (buf[i] != pattern(i, kSeed)) {
            std::printf("child: stale data: byte %zu is %u, not %u\n", i, buf[i], pattern(i, kSeed));
            return 1;
        }
    }
    std::printf("child: read the parent's async copy after %s\n", wait ? "hipStreamWaitEvent" : "no wait");
    CHECK(hipEventDestroy(ev));
    CHECK(hipIpcCloseMemHandle(p));
    send_byte(sock, 'D');
    std::printf("child: ok\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "child") == 0) return child(std::atoi(argv[2]));
    CHECK(hipSetDevice(0));
    void* dev = nullptr;
    CHECK(hipMalloc(&dev, kSize));
    CHECK(hipMemset(dev, 0, kSize));
    // hipMemset of device memory is queued on the NULL stream (clr's ihipMemset);
    // the non-blocking streams below do not wait for it.
    CHECK(hipStreamSynchronize(nullptr));
    unsigned char* src = nullptr;
    CHECK(hipHostMalloc(reinterpret_cast<void**>(&src), kSize, 0));
    for (size_t i = 0; i < kSize; i++) src[i] = pattern(i, kSeed);
    hipIpcMemHandle_t mh;
    CHECK(hipIpcGetMemHandle(&mh, dev));
    hipEvent_t ev = nullptr;
    EXPECT(hipEventCreateWithFlags(&ev, hipEventInterprocess), hipErrorInvalidValue);  // HIP-EVT-001
    CHECK(hipEventCreateWithFlags(&ev, hipEventInterprocess | hipEventDisableTiming));
    hipIpcEventHandle_t eh;
    CHECK(hipIpcGetEventHandle(&eh, ev));
    hipEvent_t own = nullptr;
    EXPECT(hipIpcOpenEventHandle(&own, eh), hipErrorInvalidContext);  // HIP-IEV-002
    hipStream_t s = nullptr;
    CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    pid_t pid;
    int sock = spawn_child(argv[0], &pid);
    send_all(sock, &mh, sizeof mh);
    send_all(sock, &eh, sizeof eh);
    CHECK(hipMemcpyAsync(dev, src, kSize, hipMemcpyHostToDevice, s));
    CHECK(hipEventRecord(ev, s));
    send_byte(sock, 'G');
    expect_byte(sock, 'D');
    reap(pid);
    CHECK(hipStreamSynchronize(s));
    CHECK(hipStreamDestroy(s));
    CHECK(hipEventDestroy(ev));
    CHECK(hipHostFree(src));
    CHECK(hipFree(dev));
    std::printf("parent: ok\n");
    return 0;
}
