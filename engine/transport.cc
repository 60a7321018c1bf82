#include "engine/transport.h"

#include <stdexcept>

namespace needle {

const IntervalData& Transport::BeginStreamed(uint32_t) {
  throw std::logic_error("this transport streams no interval");
}

void Transport::StreamIn(uint32_t, const IntervalIo::PieceFold&) {
  throw std::logic_error("this transport streams no interval");
}

void Transport::EndStreamed(const std::byte*, const uint8_t*) {
  throw std::logic_error("this transport streams no interval");
}

void Transport::Resume(uint32_t, std::vector<uint8_t>) {
  throw std::logic_error("this transport cannot take over a run's messages");
}

}  // namespace needle
