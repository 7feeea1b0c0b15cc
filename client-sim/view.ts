/** The bots' view of the match is the predicting client's view from shared/client (also used by web/). */
export * from '../shared/client/view';
