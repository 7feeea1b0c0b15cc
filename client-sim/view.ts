/** The bots' view of the match is the predicting client's view from shared/client (also used by web/). */
export { captureState, MatchView, Snap, SNAP_STRIDE, type StateSnapshot } from '../shared/client/view';
