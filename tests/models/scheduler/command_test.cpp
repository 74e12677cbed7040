// Command descriptors and launch-argument blocks: the byte layout the driver writes.
#include "models/scheduler/command.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace npu {
namespace {

Descriptor sample() {
  Descriptor d;
  d.queue = 7;
  d.command_id = 0x0102030405060708ull;
  d.priority = -3;
  d.body = KernelCommand{0x1111222233334444ull, 0xfedcba9876543210ull, 42, 3, 1024, 4};
  return d;
}

TEST(Descriptor, RoundTrip) {
  const Descriptor in = sample();
  const auto bytes = in.encode();
  EXPECT_EQ(bytes.size(), Descriptor::kBytes);
  Descriptor out;
  out.body = CopyCommand{};
  ASSERT_TRUE(Descriptor::decode(bytes.data(), &out));
  EXPECT_EQ(out.type(), CommandType::Kernel);
  EXPECT_EQ(out.queue, in.queue);
  EXPECT_EQ(out.command_id, in.command_id);
  ASSERT_NE(out.kernel(), nullptr);
  EXPECT_EQ(out.kernel()->binary_addr, in.kernel()->binary_addr);
  EXPECT_EQ(out.kernel()->binary_bytes, in.kernel()->binary_bytes);
  EXPECT_EQ(out.kernel()->kernel, 42u);
  EXPECT_EQ(out.kernel()->launch_id, 3u);
  EXPECT_EQ(out.kernel()->arg_bytes, 1024u);
  EXPECT_EQ(out.kernel()->units, 4u);
  EXPECT_EQ(out.priority, -3);
}

TEST(Descriptor, EveryTypeRoundTrips) {
  const std::vector<CommandBody> bodies = {KernelCommand{1, 2, 3, 4, 5, 6}, CopyCommand{7, 8, 9},
                                           EventRecordCommand{10}, EventWaitCommand{11, 12}};
  for (const CommandBody& body : bodies) {
    Descriptor in;
    in.body = body;
    Descriptor out;
    ASSERT_TRUE(Descriptor::decode(in.encode().data(), &out));
    EXPECT_EQ(static_cast<uint32_t>(out.type()), body.index() + 1);
    EXPECT_EQ(out.encode(), in.encode());
  }
  Descriptor wait;
  wait.body = EventWaitCommand{11, 12};
  Descriptor out;
  ASSERT_TRUE(Descriptor::decode(wait.encode().data(), &out));
  const auto* w = std::get_if<EventWaitCommand>(&out.body);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->event, 11u);
  EXPECT_EQ(w->records, 12u);
  const auto* copy = std::get_if<CopyCommand>(&bodies[1]);
  Descriptor c;
  c.body = *copy;
  ASSERT_TRUE(Descriptor::decode(c.encode().data(), &out));
  ASSERT_NE(std::get_if<CopyCommand>(&out.body), nullptr);
  EXPECT_EQ(std::get<CopyCommand>(out.body).src, 7u);
  EXPECT_EQ(std::get<CopyCommand>(out.body).dst, 8u);
  EXPECT_EQ(std::get<CopyCommand>(out.body).bytes, 9u);
}

TEST(Descriptor, LittleEndianLayout) {
  const auto bytes = sample().encode();
  EXPECT_EQ(bytes[0], 1); // type Kernel
  EXPECT_EQ(bytes[1], 0);
  EXPECT_EQ(bytes[4], 7);    // queue
  EXPECT_EQ(bytes[8], 0x08); // command_id, low byte first
  EXPECT_EQ(bytes[15], 0x01);
  EXPECT_EQ(bytes[16], 0x44); // binary_addr
  EXPECT_EQ(bytes[24], 0x10); // binary_bytes
  EXPECT_EQ(bytes[32], 42);   // kernel
  EXPECT_EQ(bytes[40], 3);    // launch_id
  EXPECT_EQ(bytes[48], 0x00); // arg_bytes = 0x400
  EXPECT_EQ(bytes[49], 0x04);
  EXPECT_EQ(bytes[52], 4);    // units
  EXPECT_EQ(bytes[56], 0xfd); // priority -3
  EXPECT_EQ(bytes[59], 0xff);
  for (size_t i = 60; i < bytes.size(); ++i)
    EXPECT_EQ(bytes[i], 0) << i;
}

// The words an event command does not use stay zero, and arg_bytes and units keep the
// values the driver always wrote for them (0 and 1).
TEST(Descriptor, EventCommandLayout) {
  Descriptor d;
  d.body = EventWaitCommand{42, 3};
  const auto bytes = d.encode();
  EXPECT_EQ(bytes[0], 4); // type EventWait
  for (size_t i = 16; i < 32; ++i)
    EXPECT_EQ(bytes[i], 0) << i;
  EXPECT_EQ(bytes[32], 42); // event
  EXPECT_EQ(bytes[40], 3);  // records
  EXPECT_EQ(bytes[48], 0);  // arg_bytes
  EXPECT_EQ(bytes[52], 1);  // units
}

TEST(Descriptor, RejectsBadType) {
  auto bytes = sample().encode();
  Descriptor out;
  for (uint8_t bad : {0, 5, 255}) {
    bytes[0] = bad;
    EXPECT_FALSE(Descriptor::decode(bytes.data(), &out)) << int{bad};
  }
  bytes[0] = 1;
  bytes[3] = 1; // type 0x01000001
  EXPECT_FALSE(Descriptor::decode(bytes.data(), &out));
}

TEST(Descriptor, RejectsOversizedArgumentBlock) {
  Descriptor in = sample();
  std::get<KernelCommand>(in.body).arg_bytes = CommandLayout::kArgBytes + 1;
  Descriptor out;
  EXPECT_FALSE(Descriptor::decode(in.encode().data(), &out));
  std::get<KernelCommand>(in.body).arg_bytes = CommandLayout::kArgBytes;
  EXPECT_TRUE(Descriptor::decode(in.encode().data(), &out));
}

TEST(LaunchArgs, RoundTrip) {
  const std::vector<Region> in = {{0x1000, 64}, {0xffff'ffff'0000ull, 1ull << 20}, {0, 0}};
  const std::vector<uint8_t> bytes = encode_args(in);
  EXPECT_EQ(bytes.size(), 8u + 16 * 3);
  EXPECT_EQ(bytes[0], 3);
  std::vector<Region> out = {{9, 9}}; // cleared by decode
  ASSERT_TRUE(decode_args(bytes.data(), static_cast<uint32_t>(bytes.size()), &out));
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].addr, in[i].addr) << i;
    EXPECT_EQ(out[i].bytes, in[i].bytes) << i;
  }
}

TEST(LaunchArgs, EmptyAndTruncated) {
  EXPECT_TRUE(encode_args({}).empty());   // no arguments: no block at all
  const std::vector<uint8_t> empty(8, 0); // a block that lists zero regions
  std::vector<Region> out = {{1, 1}};
  EXPECT_TRUE(decode_args(empty.data(), 8, &out));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(decode_args(empty.data(), 0, &out)); // no argument block at all
  EXPECT_FALSE(decode_args(empty.data(), 4, &out));
  const std::vector<uint8_t> two = encode_args({{1, 2}, {3, 4}});
  EXPECT_FALSE(decode_args(two.data(), static_cast<uint32_t>(two.size() - 1), &out));
  EXPECT_TRUE(decode_args(two.data(), static_cast<uint32_t>(two.size() + 0), &out));
  EXPECT_EQ(out.size(), 2u);
}

TEST(LaunchArgs, MaxArgsFitTheBlock) {
  std::vector<Region> regions(CommandLayout::kMaxArgs, Region{1, 1});
  EXPECT_EQ(CommandLayout::kMaxArgs, 63u);
  EXPECT_LE(encode_args(regions).size(), CommandLayout::kArgBytes);
}

TEST(CommandLayout, AddressesDoNotOverlap) {
  CommandLayout l;
  l.base = 0x10000;
  l.queues = 2;
  l.entries = 4;
  EXPECT_EQ(l.total_slots(), 8u);
  EXPECT_EQ(l.descriptor_addr(0, 0), 0x10000u);
  EXPECT_EQ(l.descriptor_addr(1, 1), 0x10000u + 5 * 64);
  EXPECT_EQ(l.descriptor_addr(1, 5), l.descriptor_addr(1, 1)); // slots wrap
  EXPECT_EQ(l.arg_addr(0, 0), 0x10000u + 8 * 64);
  EXPECT_EQ(l.arg_addr(1, 3), 0x10000u + 8 * 64 + 7 * 1024);
  EXPECT_EQ(l.completion_addr(0, 0), 0x10000u + 8 * (64 + 1024));
  EXPECT_EQ(l.completion_addr(1, 3), 0x10000u + 8 * (64 + 1024) + 7 * 16);
  EXPECT_EQ(l.end(), 0x10000u + 8 * (64 + 1024 + 16));
  EXPECT_LE(l.completion_addr(1, 3) + 16, l.end());
}

} // namespace
} // namespace npu
